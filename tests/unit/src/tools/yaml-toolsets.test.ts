import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { loadYamlToolsets, resolveToolsets } from '../../../../src/tools/toolset-registry.js';
import { expandArgs, loadYamlToolset } from '../../../../src/tools/yaml-toolset.js';
import { BUILTIN_YAML_DIR } from '../../../../toolsets/index.js';
import { freePort } from '../../../helpers/free-port.js';

const dir = mkdtempSync(join(tmpdir(), 'lestrade-toolsets-'));
const write = (name: string, text: string) => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

let httpUrl = '';
const server = createServer((req, res) => {
  const url = new URL(req.url!, 'http://x');
  res.writeHead(url.searchParams.get('q') === 'none' ? 200 : 200, { 'content-type': 'text/plain' });
  res.end(
    url.searchParams.get('q') === 'none'
      ? ''
      : `path=${url.pathname} q=${url.searchParams.get('q')} auth=${String(req.headers['x-token'])}`,
  );
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  httpUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.close();
});

const SHELL_FREE = `name: local
description: test tools
tools:
  - name: echo_word
    description: echo a word
    params:
      word: { type: string }
      loud: { type: boolean, required: false }
    command: [echo, { when: loud, args: ["LOUD"] }, "{{ word }}"]
  - name: print_nothing
    description: prints nothing
    command: [printf, ""]
  - name: fail
    description: fails
    command: [ls, /definitely/not/here]
  - name: count
    description: prints many lines
    params: { n: { type: integer, minimum: 1, maximum: 1000000 } }
    command: [seq, 1, "{{ n }}"]
  - name: restart_service
    description: has side effects
    sideEffects: true
    params: { name: { type: string } }
    command: [echo, restarted, "{{ name }}"]
`;

describe('YAML command tools', () => {
  const exec = () =>
    new ToolExecutor({ tools: loadYamlToolset(write('local.yaml', SHELL_FREE)).tools, maxOutputChars: 5000 });
  const call = (e: ToolExecutor, name: string, args: unknown) =>
    e.execute({ id: '1', name, arguments: JSON.stringify(args) });

  it('runs without a shell: shell syntax in a value stays one literal argument', async () => {
    const r = await call(exec(), 'echo_word', { word: 'a; echo injected $(id)' });
    expect(r).toMatchObject({ status: 'success', data: 'a; echo injected $(id)\n' });
  });

  it('adds optional argument groups only when their parameter is given', async () => {
    expect((await call(exec(), 'echo_word', { word: 'hi', loud: true })).data).toBe('LOUD hi\n');
    expect((await call(exec(), 'echo_word', { word: 'hi', loud: false })).data).toBe('hi\n');
  });

  it('reads a parameter named like an Object.prototype property only when it was given', async () => {
    const ts = loadYamlToolset(
      write(
        'proto.yaml',
        `name: proto
description: x
tools:
  - name: opt
    description: x
    params: { constructor: { type: string, required: false } }
    command: [echo, base, { when: constructor, args: ["--with={{ constructor }}"] }]
`,
      ),
    );
    const e = new ToolExecutor({ tools: ts.tools });
    expect(await call(e, 'opt', {})).toMatchObject({ status: 'success', data: 'base\n' });
    expect(await call(e, 'opt', { constructor: 'x' })).toMatchObject({ status: 'success', data: 'base --with=x\n' });
  });

  it('refuses values that would be read as flags', async () => {
    const r = await call(exec(), 'echo_word', { word: '--kubeconfig=/etc/passwd' });
    expect(r).toMatchObject({ status: 'error', error: expect.stringMatching(/word: must not start with "-"/) });
  });

  it('reports empty output as no_data and a failing command as an error with its stderr', async () => {
    expect(await call(exec(), 'print_nothing', {})).toMatchObject({ status: 'no_data' });
    expect(await call(exec(), 'fail', {})).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/exit 2: .*No such file/),
    });
  });

  it('caps output', async () => {
    const r = await call(exec(), 'count', { n: 200000 });
    expect(r.status).toBe('success');
    expect(r.truncated).toBe(true);
    expect(r.data!.length).toBeLessThan(5100);
    expect(r.data).toMatch(/truncated \d+ characters/);
  });

  it('holds back side-effecting tools for approval, and the runner refuses them again', async () => {
    expect(await call(exec(), 'restart_service', { name: 'api' })).toMatchObject({ status: 'approval_required' });
    const tool = exec().tools.find((t) => t.name === 'restart_service')!;
    const direct = await tool.run({ name: 'api' }, { signal: new AbortController().signal, approved: false });
    expect(direct).toMatchObject({ status: 'error', error: expect.stringMatching(/refused/) });
    const approved = await tool.run({ name: 'api' }, { signal: new AbortController().signal, approved: true });
    expect(approved).toMatchObject({ status: 'success', data: 'restarted api\n' });
  });
});

describe('YAML tools whose lines: narrow the output', () => {
  const ts = () =>
    loadYamlToolset(
      write(
        'lines.yaml',
        `name: lines
description: x
tools:
  - name: log
    description: prints log lines
    params:
      filter: { type: string, required: false, allowLeadingDash: true }
      exclude: { type: string, required: false }
      limit: { type: integer, required: false, minimum: 1 }
    lines: { filter: filter, exclude: exclude, limit: limit }
    command: [printf, "GET /health 200\\nPOST /pay 500\\nGET /cart 503\\nERROR db\\n"]
`,
      ),
    );
  const call = (args: unknown) =>
    new ToolExecutor({ tools: ts().tools }).execute({ id: '1', name: 'log', arguments: JSON.stringify(args) });

  it('keeps the matching lines, drops the excluded, then keeps the last N, after the command ran', async () => {
    expect(await call({})).toMatchObject({
      status: 'success',
      data: 'GET /health 200\nPOST /pay 500\nGET /cart 503\nERROR db\n',
    });
    expect(await call({ filter: '5[0-9]{2}|error' })).toMatchObject({
      data: 'POST /pay 500\nGET /cart 503\nERROR db\n',
    });
    expect(await call({ filter: 'get', exclude: 'health' })).toMatchObject({ data: 'GET /cart 503\n' });
    expect(await call({ filter: 'e', limit: 2 })).toMatchObject({ data: 'GET /cart 503\nERROR db\n' });
  });

  it('says no line matched as no data, and a slow pattern as an error naming the parameter', async () => {
    expect(await call({ filter: 'nothing like this' })).toMatchObject({
      status: 'no_data',
      data: 'no line matched the filter',
    });
    expect(await call({ filter: '(a+)+' })).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/^invalid arguments: filter: a quantified group/),
    });
  });

  it('refuses a lines: entry naming a parameter the tool does not declare', () => {
    const bad = write(
      'bad-lines.yaml',
      'name: bad\ndescription: x\ntools:\n  - name: t\n    description: x\n    lines: { filter: nope }\n    command: [echo]\n',
    );
    expect(() => loadYamlToolset(bad)).toThrow(/lines: lines names a parameter this tool does not declare/);
  });
});

describe('YAML HTTP tools', () => {
  it('renders URL, query and headers (with env) and reports empty bodies as no_data', async () => {
    process.env.LESTRADE_TEST_TOKEN = 'tok123';
    const path = write(
      'http.yaml',
      `name: web
description: http tools
tools:
  - name: lookup
    description: look something up
    params: { q: { type: string } }
    http:
      url: "${httpUrl}/search/{{ q }}"
      query: { q: "{{ q }}" }
      headers: { x-token: "{{ env.LESTRADE_TEST_TOKEN }}" }
`,
    );
    const e = new ToolExecutor({ tools: loadYamlToolset(path).tools });
    expect(await e.execute({ id: '1', name: 'lookup', arguments: '{"q":"a b&c"}' })).toMatchObject({
      status: 'success',
      data: 'path=/search/a%20b%26c q=a b&c auth=tok123',
    });
    const sneaky = await e.execute({ id: '3', name: 'lookup', arguments: '{"q":"admin?x=1#y"}' });
    expect(sneaky.data).toMatch(/^path=\/search\/admin%3Fx%3D1%23y q=admin\?x=1#y /);
    expect(await e.execute({ id: '2', name: 'lookup', arguments: '{"q":"none"}' })).toMatchObject({
      status: 'no_data',
    });
  });
});

describe('YAML HTTP tools against hostile parameter values', () => {
  const requests: Array<{ method: string; url: string; body: string; headers: Record<string, unknown> }> = [];
  const recorder = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    requests.push({
      method: req.method!,
      url: req.url!,
      body: Buffer.concat(chunks).toString('utf8'),
      headers: req.headers,
    });
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((r) => recorder.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    recorder.close();
  });
  const tools = () =>
    new ToolExecutor({
      tools: loadYamlToolset(
        write(
          'hostile.yaml',
          `name: hostile
description: x
tools:
  - name: component_status
    description: x
    params: { component: { type: string } }
    http: { url: "${base}/api/v1/components/{{ component }}/status" }
  - name: set_component
    description: x
    params:
      component: { type: string }
      replicas: { type: integer, required: false }
      dry: { type: boolean }
    http:
      url: "${base}/api/v1/components"
      method: POST
      body:
        component: "{{ component }}"
        replicas: "{{ replicas }}"
        dry: "{{ dry }}"
        note: "set by lestrade: {{ component }}"
        tags: ["{{ component }}", fixed]
`,
        ),
      ).tools,
    });
  const call = (name: string, args: unknown) => tools().execute({ id: '1', name, arguments: JSON.stringify(args) });

  it('refuses values that would be dot segments in the path, naming the parameter, and sends nothing', async () => {
    requests.length = 0;
    for (const component of ['..', '.', '%2e%2e', '%2E.', '.%2e', '%252e%252e', '../admin', 'a/../../b', '..\\x']) {
      const r = await call('component_status', { component });
      expect(r, component).toMatchObject({ status: 'error', error: expect.stringMatching(/component/) });
    }
    expect(requests).toEqual([]);
    expect(await call('component_status', { component: '...' })).toMatchObject({ status: 'success' });
    expect(await call('component_status', { component: 'a..b' })).toMatchObject({ status: 'success' });
    expect(requests.map((r) => r.url)).toEqual(['/api/v1/components/.../status', '/api/v1/components/a..b/status']);
  });

  it('builds JSON bodies from typed values: a value cannot add fields', async () => {
    requests.length = 0;
    const evil = 'x", "admin": true, "y": "';
    expect(await call('set_component', { component: evil, replicas: 3, dry: false })).toMatchObject({
      status: 'success',
    });
    expect(await call('set_component', { component: 'api', dry: true })).toMatchObject({ status: 'success' });
    expect(requests.map((r) => JSON.parse(r.body))).toEqual([
      { component: evil, replicas: 3, dry: false, note: `set by lestrade: ${evil}`, tags: [evil, 'fixed'] },
      { component: 'api', dry: true, note: 'set by lestrade: api', tags: ['api', 'fixed'] },
    ]);
    expect(requests[0]!.headers['content-type']).toBe('application/json');
  });

  it('refuses a body written as templated JSON text when loading the toolset', () => {
    const path = write(
      'text-body.yaml',
      `name: text-body
description: x
tools:
  - name: t
    description: x
    params: { component: { type: string } }
    http: { url: "http://x/", method: POST, body: '{"component": "{{ component }}"}' }
`,
    );
    expect(() => loadYamlToolset(path)).toThrow(/tools\.0\.http\.body: .*mapping/);
  });
});

describe('toolset registry', () => {
  it('reports a broken YAML file as failed, naming the key, without stopping the rest', () => {
    const sub = mkdtempSync(join(tmpdir(), 'lestrade-bad-'));
    writeFileSync(
      join(sub, 'bad.yaml'),
      'name: bad\ndescription: x\ntools:\n  - name: t\n    description: d\n    command: []\n',
    );
    writeFileSync(join(sub, 'good.yml'), SHELL_FREE);
    const { toolsets, failures } = loadYamlToolsets([sub]);
    expect(toolsets.map((t) => t.name)).toEqual(['local']);
    expect(failures[0]).toMatchObject({ name: 'bad', state: 'failed', reason: expect.stringMatching(/tools\.0/) });
  });

  it('disables toolsets switched off or missing env vars, and fails a tool-name clash', async () => {
    const a = loadYamlToolset(write('a.yaml', SHELL_FREE));
    const b = { ...loadYamlToolset(write('b.yaml', SHELL_FREE)), name: 'copy' };
    const needsEnv = loadYamlToolset(
      write(
        'env.yaml',
        `name: needs-env
description: x
prerequisites: [ { env: [LESTRADE_NOT_SET_1, LESTRADE_NOT_SET_2] } ]
tools: [ { name: x1, description: x, command: [echo] } ]
`,
      ),
    );
    const off = { ...loadYamlToolset(write('off.yaml', SHELL_FREE.replace('name: local', 'name: off'))), tools: [] };
    const r = await resolveToolsets([a, b, needsEnv, off], { off: { enabled: false } }, {});
    expect(r.statuses.map((s) => [s.name, s.state])).toEqual([
      ['local', 'enabled'],
      ['copy', 'failed'],
      ['needs-env', 'disabled'],
      ['off', 'disabled'],
    ]);
    expect(r.statuses[1]!.reason).toMatch(/echo_word is already defined by toolset local/);
    expect(r.statuses[2]!.reason).toBe(
      'prerequisite not met: environment variables not set: LESTRADE_NOT_SET_1, LESTRADE_NOT_SET_2',
    );
    expect(r.statuses[3]!.reason).toMatch(/switched off/);
    expect(r.tools.map((t) => t.name)).toEqual(['echo_word', 'print_nothing', 'fail', 'count', 'restart_service']);
  });

  it('marks a toolset failed, not disabled, when a check that says so fails (the bash toolset without its sandbox)', async () => {
    const base = { description: 'x', origin: 'builtin', enabled: true, tools: [] };
    const broken = {
      ...base,
      name: 'broken',
      prerequisites: [{ kind: 'check' as const, run: async () => 'no sandbox: install it', failed: true }],
    };
    const absent = {
      ...base,
      name: 'absent',
      prerequisites: [{ kind: 'check' as const, run: async () => 'not configured' }],
    };
    const fine = {
      ...base,
      name: 'fine',
      prerequisites: [{ kind: 'check' as const, run: async () => null, failed: true }],
    };
    const r = await resolveToolsets([broken, absent, fine], {}, {});
    expect(r.statuses.map((s) => [s.name, s.state, s.reason])).toEqual([
      ['broken', 'failed', 'no sandbox: install it'],
      ['absent', 'disabled', 'prerequisite not met: not configured'],
      ['fine', 'enabled', undefined],
    ]);
    expect(r.enabled.map((t) => t.name)).toEqual(['fine']);
  });
});

describe('kubernetes toolset', () => {
  const k8s = loadYamlToolset(join(BUILTIN_YAML_DIR, 'kubernetes.yaml'));

  it('defines typed kubectl tools', () => {
    expect(k8s.tools.map((t) => t.name).slice(0, 4)).toEqual([
      'kubectl_get',
      'kubectl_describe',
      'kubectl_logs',
      'kubectl_events',
    ]);
    expect(k8s.tools.every((t) => !t.sideEffects)).toBe(true);
  });

  it('builds argv from typed parameters', async () => {
    const { YamlToolsetSchema } = await import('../../../../src/tools/yaml-toolset-schema.js');
    const { parse } = await import('yaml');
    const { readFileSync } = await import('node:fs');
    const def = YamlToolsetSchema.parse(parse(readFileSync(join(BUILTIN_YAML_DIR, 'kubernetes.yaml'), 'utf8')));
    const get = def.tools[0]!;
    const logs = def.tools[2]!;
    expect(expandArgs(get.command!, { kind: 'pods', namespace: 'prod', selector: 'app=api' })).toEqual([
      'kubectl',
      'get',
      'pods',
      '--namespace',
      'prod',
      '--selector',
      'app=api',
      '-o',
      'wide',
    ]);
    expect(expandArgs(logs.command!, { pod: 'api-1', namespace: 'prod', previous: true })).toEqual([
      'kubectl',
      'logs',
      'api-1',
      '--namespace',
      'prod',
      '--previous',
      '--tail=200',
    ]);
  });

  it('reports itself disabled, with the reason, where kubectl reaches no cluster', async () => {
    const port = await freePort();
    const kubeconfig = write(
      'kubeconfig',
      `apiVersion: v1
kind: Config
clusters: [ { name: c, cluster: { server: "https://127.0.0.1:${port}" } } ]
users: [ { name: u, user: { token: x } } ]
contexts: [ { name: c, context: { cluster: c, user: u } } ]
current-context: c
`,
    );
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = kubeconfig;
    try {
      const r = await resolveToolsets([k8s], {}, process.env);
      expect(r.statuses[0]).toMatchObject({ state: 'disabled', reason: expect.stringMatching(/kubectl/) });
      expect(r.statuses[0]!.reason).toMatch(/refused|command not found/);
      expect(r.tools).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
  });
});
