import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { loadYamlToolsets, resolveToolsets } from '../../../../src/tools/toolset-registry.js';
import { expandArgs, loadYamlToolset } from '../../../../src/tools/yaml-toolset.js';
import type { Toolset } from '../../../../src/tools/types.js';

// YAML toolsets as loaded from files: their prerequisites, command and HTTP tools, and the registry.

const dir = mkdtempSync(join(tmpdir(), 'lestrade-yaml-tools-'));
let n = 0;
const load = (text: string, env: Record<string, string | undefined> = {}) => {
  const path = join(dir, `t${n++}.yaml`);
  writeFileSync(path, text);
  return loadYamlToolset(path, env);
};
const exec = (ts: Toolset) => new ToolExecutor({ tools: ts.tools, maxOutputChars: 1_000_000 });
const call = (ts: Toolset, name: string, args: unknown) =>
  exec(ts).execute({ id: '1', name, arguments: JSON.stringify(args) });

let seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }>;
let reply: { status: number; body: string; hang?: boolean };
const server = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
  if (reply.hang) return;
  res.writeHead(reply.status, { 'content-type': 'text/plain' }).end(reply.body);
});
let base = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});
beforeEach(() => {
  seen = [];
  reply = { status: 200, body: 'ok' };
});

describe('loading a YAML toolset', () => {
  it('keeps its name, description and origin, on by default, with its prerequisites in order', () => {
    const ts = load(`name: svc
description: my service
prerequisites:
  - env: [A, B]
  - command: [kubectl, version]
  - command: [slow-check]
    timeoutSeconds: 2
    explain: [ { match: "refused", say: "svc is not running" } ]
  - http: "http://svc/healthz"
  - http: "http://svc/ready"
    headers: { x-probe: "1" }
    timeoutSeconds: 1.5
tools: [ { name: t, description: d, command: [echo] } ]
`);
    expect(ts).toMatchObject({
      name: 'svc',
      description: 'my service',
      enabled: true,
      origin: expect.stringMatching(/\.yaml$/),
    });
    expect(ts.prerequisites).toEqual([
      { kind: 'env', vars: ['A', 'B'] },
      { kind: 'command', argv: ['kubectl', 'version'], timeoutMs: 10_000 },
      {
        kind: 'command',
        argv: ['slow-check'],
        timeoutMs: 2_000,
        explain: [{ match: 'refused', say: 'svc is not running' }],
      },
      { kind: 'http', url: 'http://svc/healthz', headers: {}, timeoutMs: 5_000 },
      { kind: 'http', url: 'http://svc/ready', headers: { 'x-probe': '1' }, timeoutMs: 1_500 },
    ]);
    expect(
      load('name: off\ndescription: d\nenabled: false\ntools: [ { name: t, description: d, command: [echo] } ]\n')
        .enabled,
    ).toBe(false);
  });

  it('keeps its instructions for the system prompt, trimmed, and has none when the file gives none', () => {
    const ts = load(`name: svc
description: my service
instructions: |
  Read the deploys first.
  Then the logs.
tools: [ { name: t, description: d, command: [echo] } ]
`);
    expect(ts.instructions).toBe('Read the deploys first.\nThen the logs.');
    expect(
      load('name: bare\ndescription: d\ntools: [ { name: t, description: d, command: [echo] } ]\n'),
    ).not.toHaveProperty('instructions');
    expect(() =>
      load('name: e\ndescription: d\ninstructions: "  "\ntools: [ { name: t, description: d, command: [echo] } ]\n'),
    ).toThrow(/instructions/);
  });

  it('takes only names of the allowed characters and lengths, whole', () => {
    const named =
      (toolset: string, toolName: string, param = 'p') =>
      () =>
        load(
          `name: ${toolset}\ndescription: d\ntools: [ { name: "${toolName}", description: d, params: { "${param}": { type: string } }, command: [echo] } ]\n`,
        );
    expect(named('ok/sub-set_1', 'Tool_name-1')).not.toThrow();
    expect(named('my service', 't')).toThrow(/name: lower-case letters/);
    expect(named('x', 'bad name')).toThrow(/tools\.0\.name: letters, digits, _ and - only, at most 64/);
    expect(named('x', 'name!')).toThrow(/tools\.0\.name: /);
    expect(named('x', 't'.repeat(65))).toThrow(/tools\.0\.name: /);
    expect(named('x', 't'.repeat(64))).not.toThrow();
    expect(named('x', 't', 'bad-param')).toThrow(/tools\.0\.params\.bad-param/);
    expect(named('x', 't', '1st')).toThrow(/tools\.0\.params\.1st/);
    expect(named('x', 't', 'ok-')).toThrow(/tools\.0\.params\.ok-/);
  });

  it('names the file and the key when the toolset is wrong', () => {
    const path = join(dir, 'bad.yaml');
    writeFileSync(
      path,
      'name: Bad Name\ndescription: d\ntools: [ { name: t, description: d, command: [echo], http: { url: "http://x" } } ]\n',
    );
    expect(() => loadYamlToolset(path)).toThrow(
      `${path}: name: lower-case letters, digits, _, / and -; tools.0: a tool needs exactly one of command or http`,
    );
    writeFileSync(
      path,
      'name: p\ndescription: d\nprerequisites: [ { env: [A], http: "http://x" } ]\ntools: [ { name: t, description: d, command: [echo] } ]\n',
    );
    expect(() => loadYamlToolset(path)).toThrow(
      'prerequisites.0: a prerequisite needs exactly one of env, command or http',
    );
    writeFileSync(
      path,
      'name: p\ndescription: d\nprerequisites: [ { env: [A], explain: [ { match: x, say: y } ] } ]\ntools: [ { name: t, description: d, command: [echo] } ]\n',
    );
    expect(() => loadYamlToolset(path)).toThrow('prerequisites.0: explain is for a command prerequisite');
    for (const entry of ['{ match: "", say: y }', '{ match: x, say: "" }', '{ match: x, say: y, when: z }']) {
      writeFileSync(
        path,
        `name: p\ndescription: d\nprerequisites: [ { command: [x], explain: [ ${entry} ] } ]\ntools: [ { name: t, description: d, command: [echo] } ]\n`,
      );
      expect(() => loadYamlToolset(path)).toThrow(/^.*prerequisites\.0\.explain\.0/);
    }
  });
});

describe('YAML command tools', () => {
  const ts = () =>
    load(`name: cmd
description: d
tools:
  - name: run
    description: d
    params: { script: { type: string }, n: { type: integer, required: false }, flag: { type: boolean, required: false }, opt: { type: string, required: false } }
    command: [sh, -c, "{{ script }}", sh, { when: n, args: ["n={{ n }}"] }, { when: flag, args: [FLAG] }, { when: opt, args: ["--opt", "{{ opt }}"] }]
    noDataPatterns: ["No resources found", "-- No entries --"]
  - name: danger
    description: d
    sideEffects: true
    command: [echo, done]
`);

  it('passes optional groups only for given, true and non-empty values', async () => {
    expect(await call(ts(), 'run', { script: 'echo "$@"', n: 0, flag: true, opt: 'x' })).toMatchObject({
      status: 'success',
      data: 'n=0 FLAG --opt x\n',
    });
    expect(await call(ts(), 'run', { script: 'echo "$@"', flag: false, opt: '' })).toMatchObject({ status: 'no_data' });
    expect(expandArgs(['a', { when: 'x', args: ['b'] }], { x: 'y' }, {})).toEqual(['a', 'b']);
    expect(expandArgs(['{{ env.HOME_DIR }}'], {}, { HOME_DIR: '/h' })).toEqual(['/h']);
  });

  it('reports a failing command with its exit code and what it printed, stderr first', async () => {
    expect(await call(ts(), 'run', { script: 'echo out; echo "  err  " >&2; exit 3' })).toMatchObject({
      status: 'error',
      error: 'exit 3: err',
    });
    expect(await call(ts(), 'run', { script: 'echo only-out; exit 2' })).toMatchObject({
      status: 'error',
      error: 'exit 2: only-out',
    });
    const long = await call(ts(), 'run', {
      script: `printf '%s' "$(head -c 3000 /dev/zero | tr '\\0' e)" >&2; exit 1`,
    });
    expect(long.error).toBe(`exit 1: ${'e'.repeat(2000)}`);
  });

  it('takes empty output, or output starting with a no-data pattern, as "no data", with stderr as the message', async () => {
    expect(await call(ts(), 'run', { script: 'echo "  No resources found in prod namespace."' })).toMatchObject({
      status: 'no_data',
      data: 'no output',
    });
    expect(await call(ts(), 'run', { script: 'echo "-- No entries --"; echo "journal is empty" >&2' })).toMatchObject({
      status: 'no_data',
      data: 'journal is empty',
    });
    expect(await call(ts(), 'run', { script: 'printf "   \\n"' })).toMatchObject({ status: 'no_data' });
    expect(await call(ts(), 'run', { script: 'echo "found: No resources found"' })).toMatchObject({
      status: 'success',
    });
  });

  it('says when it capped the output', async () => {
    const r = await call(ts(), 'run', { script: "head -c 300000 /dev/zero | tr '\\0' a" });
    expect(r.status).toBe('success');
    expect(r.data!.endsWith('\n…[output capped]')).toBe(true);
    expect(r.data!.length).toBe(256 * 1024 + '\n…[output capped]'.length);
  });

  it("stops a command after the tool's timeout", async () => {
    const slow = load(
      'name: slow\ndescription: d\ntools: [ { name: wait, description: d, command: [sleep, 5], timeoutSeconds: 0.2 } ]\n',
    );
    const started = Date.now();
    expect(await call(slow, 'wait', {})).toMatchObject({ status: 'error', error: 'exit null: ' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('refuses a side-effecting command without approval, in the runner itself', async () => {
    const danger = ts().tools.find((t) => t.name === 'danger')!;
    expect(await danger.run({}, { signal: new AbortController().signal, approved: false })).toEqual({
      status: 'error',
      error: 'refused: side-effecting command without approval',
    });
  });

  it('refuses values it cannot pass exactly: a lone surrogate, a NUL', async () => {
    expect(await call(ts(), 'run', { script: 'echo \ud800' })).toMatchObject({
      status: 'error',
      error: 'refused: parameter script is not well-formed Unicode (a lone surrogate)',
    });
    expect(await call(ts(), 'run', { script: 'echo a\u0000b' })).toMatchObject({
      status: 'error',
      error: 'refused: parameter script contains a NUL character',
    });
  });
});

describe('YAML HTTP tools', () => {
  const ts = (http: string, params = '{ p: { type: string } }', extra = '') =>
    load(
      `name: web
description: d
tools:
  - name: get
    description: d
    params: ${params}
    http: ${http}
${extra}`,
      { TOKEN: 'env-token' },
    );

  it('GETs by default, with query values that are not empty and headers rendered with the environment', async () => {
    const t = ts(
      `{ url: "${base}/items/{{ p }}", query: { q: "{{ p }}", empty: "", n: "{{ p | length }}" }, headers: { authorization: "Bearer {{ env.TOKEN }}" } }`,
    );
    expect(await call(t, 'get', { p: 'a b' })).toMatchObject({ status: 'success', data: 'ok' });
    expect(seen).toEqual([expect.objectContaining({ method: 'GET', url: '/items/a%20b?q=a+b&n=3', body: '' })]);
    expect(seen[0]!.headers.authorization).toBe('Bearer env-token');
    expect(seen[0]!.headers['content-type']).toBeUndefined();
  });

  it('POSTs fixed text as it is, and a YAML body as JSON, adding the content type unless set', async () => {
    const text = ts(`{ url: "${base}/x", method: POST, body: "fixed text" }`);
    await call(text, 'get', { p: 'a' });
    expect(seen[0]).toMatchObject({ method: 'POST', body: 'fixed text' });
    expect(seen[0]!.headers['content-type']).toMatch(/^text\/plain/);
    const typed = ts(
      `{ url: "${base}/x", method: POST, headers: { Content-Type: application/merge-patch+json }, body: { v: "{{ p }}" } }`,
    );
    await call(typed, 'get', { p: 'a' });
    expect(seen[1]!.headers['content-type']).toBe('application/merge-patch+json');
    const json = ts(
      `{ url: "${base}/x", method: POST, body: { v: "{{ p }}", n: "{{ n }}", list: ["{{ n }}", 2, true, null], nested: { fixed: 1, text: "n={{ n if n else 'none' }}" } } }`,
      '{ p: { type: string }, n: { type: integer, required: false } }',
    );
    await call(json, 'get', { p: 'a' });
    expect(JSON.parse(seen[2]!.body)).toEqual({
      v: 'a',
      list: [null, 2, true, null],
      nested: { fixed: 1, text: 'n=none' },
    });
    expect(seen[2]!.headers['content-type']).toBe('application/json');
    await call(json, 'get', { p: 'a', n: 7 });
    expect(JSON.parse(seen[3]!.body)).toEqual({
      v: 'a',
      n: 7,
      list: [7, 2, true, null],
      nested: { fixed: 1, text: 'n=7' },
    });
  });

  it('adds the JSON content type beside other headers, and keeps a lone "{{ p }}" typed however it is spaced', async () => {
    const t = ts(
      `{ url: "${base}/x", method: POST, headers: { authorization: "Bearer {{ env.TOKEN }}" }, body: { a: "{{n}}", b: "{{ n  }}", c: "{{ n }} items", d: "{{ n }}{{ n }}" } }`,
      '{ n: { type: integer } }',
    );
    await call(t, 'get', { n: 7 });
    expect(seen[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]!.body)).toEqual({ a: 7, b: 7, c: '7 items', d: '77' });
  });

  it('reports an HTTP error status with the start of the body, and an empty or no-data body as "no data"', async () => {
    const t = ts(`{ url: "${base}/x/{{ p }}" }`, '{ p: { type: string } }', '    noDataPatterns: ["[]"]\n');
    reply = { status: 404, body: `not found ${'z'.repeat(3000)}` };
    expect((await call(t, 'get', { p: 'a' })).error).toBe(
      `HTTP 404: not found ${'z'.repeat(2000 - 'not found '.length)}`,
    );
    reply = { status: 200, body: ' [] ' };
    expect(await call(t, 'get', { p: 'a' })).toMatchObject({ status: 'no_data', data: 'no data found' });
    reply = { status: 200, body: '' };
    expect(await call(t, 'get', { p: 'a' })).toMatchObject({ status: 'no_data' });
  });

  it('gives up after its own timeout', async () => {
    reply = { status: 200, body: '', hang: true };
    const t = ts(`{ url: "${base}/slow" }`, '{ p: { type: string } }', '    timeoutSeconds: 0.2\n');
    const started = Date.now();
    expect(await call(t, 'get', { p: 'a' })).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/timeout|abort/i),
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('refuses a side-effecting request without approval, in the runner itself', async () => {
    const t = load(
      `name: w\ndescription: d\ntools: [ { name: post, description: d, sideEffects: true, http: { url: "${base}/x", method: POST } } ]\n`,
    );
    expect(await t.tools[0]!.run({}, { signal: new AbortController().signal, approved: false })).toEqual({
      status: 'error',
      error: 'refused: side-effecting request without approval',
    });
    expect(seen).toEqual([]);
  });

  it('refuses a lone surrogate but sends a NUL percent-encoded', async () => {
    const t = ts(`{ url: "${base}/x/{{ p }}" }`);
    expect(await call(t, 'get', { p: 'a\udc00' })).toMatchObject({
      status: 'error',
      error: 'refused: parameter p is not well-formed Unicode (a lone surrogate)',
    });
    expect(await call(t, 'get', { p: 'a\u0000b' })).toMatchObject({ status: 'success' });
    expect(seen.map((s) => s.url)).toEqual(['/x/a%00b']);
  });

  it('finds dot segments through up to eight rounds of percent-encoding, in parameters used in the URL only', async () => {
    const t = ts(
      `{ url: "${base}/items/{{ item_id }}", query: { q: "{{ item }}" } }`,
      '{ item_id: { type: string }, item: { type: string } }',
    );
    // encodeURIComponent leaves "." alone: round 1 is "%2e%2e", and each round after encodes the "%".
    let dot = '..';
    for (let round = 0; round <= 8; round++) {
      expect(await call(t, 'get', { item_id: dot, item: 'x' }), `${round} rounds`).toMatchObject({
        status: 'error',
        error: 'refused: parameter item_id would put a dot segment (. or ..) into the URL path',
      });
      dot = round === 0 ? '%2e%2e' : encodeURIComponent(dot);
    }
    expect(dot).toBe(`%${'25'.repeat(8)}2e%${'25'.repeat(8)}2e`);
    expect(seen).toEqual([]);
    expect(await call(t, 'get', { item_id: 'a', item: '..' })).toMatchObject({ status: 'success' });
    expect(await call(t, 'get', { item_id: '..x', item: 'x' })).toMatchObject({ status: 'success' });
    expect(await call(t, 'get', { item_id: 'a\\..\\b', item: 'x' })).toMatchObject({ status: 'error' });
    expect(await call(t, 'get', { item_id: '%zz..', item: 'x' })).toMatchObject({ status: 'success' });
    expect(seen.map((s) => s.url)).toEqual(['/items/a?q=..', '/items/..x?q=x', '/items/%25zz..?q=x']);
  });

  it('refuses a URL whose template makes a dot segment out of values that are not one', async () => {
    const t = ts(`{ url: "${base}/a/{{ x }}.{{ y }}/b" }`, '{ x: { type: string }, y: { type: string } }');
    expect(await call(t, 'get', { x: '', y: '' })).toMatchObject({
      status: 'error',
      error: 'refused: parameter x, y would put a dot segment (. or ..) into the URL path',
    });
    expect(await call(t, 'get', { x: 'v1', y: '2' })).toMatchObject({ status: 'success' });
    expect(seen.map((s) => s.url)).toEqual(['/a/v1.2/b']);
  });

  it('counts a parameter as in the URL when a {% %} statement uses it, by whole name only', async () => {
    const t = ts(
      `{ url: "${base}/{% if sub %}{{ sub }}{% endif %}/z/{{ subpath }}" }`,
      '{ sub: { type: string }, subpath: { type: string } }',
    );
    expect(await call(t, 'get', { sub: '..', subpath: 'ok' })).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/parameter sub would/),
    });
    expect(await call(t, 'get', { sub: 'ok', subpath: '.' })).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/parameter subpath would/),
    });
  });

  it('names a parameter used only inside a {% %} statement when it would make a dot segment', async () => {
    const t = ts(`{ url: "${base}/a/{% set seg = part %}{{ seg }}/b" }`, '{ part: { type: string } }');
    expect(await call(t, 'get', { part: '..' })).toMatchObject({
      status: 'error',
      error: 'refused: parameter part would put a dot segment (. or ..) into the URL path',
    });
  });

  it('stops decoding after eight rounds: a dot segment encoded nine times is sent as it is', async () => {
    const t = ts(`{ url: "${base}/items/{{ p }}" }`);
    let nine = '%2e%2e';
    for (let i = 1; i < 9; i++) nine = encodeURIComponent(nine);
    expect(await call(t, 'get', { p: nine })).toMatchObject({ status: 'success' });
    expect(seen).toHaveLength(1);
  });

  it('leaves numbers out of percent-encoding', async () => {
    const t = ts(`{ url: "${base}/n/{{ n + 1 }}" }`, '{ n: { type: integer } }');
    expect(await call(t, 'get', { n: 41 })).toMatchObject({ status: 'success' });
    expect(seen[0]!.url).toBe('/n/42');
  });
});

describe('the toolset registry', () => {
  const TOOLSET = (name: string, tool: string, extra = '') =>
    `name: ${name}\ndescription: d\n${extra}tools: [ { name: ${tool}, description: d, command: [echo] } ]\n`;

  it('loads .yaml and .yml files in name order, ignores others, and reports folders it cannot read', () => {
    const d = mkdtempSync(join(tmpdir(), 'lestrade-reg-'));
    writeFileSync(join(d, 'a.yaml'), TOOLSET('a', 'ta'));
    writeFileSync(join(d, 'b.yml'), TOOLSET('b', 'tb'));
    writeFileSync(join(d, 'c.yaml'), TOOLSET('c', 'tc'));
    writeFileSync(join(d, 'c.json'), '{}');
    writeFileSync(join(d, 'notes.yaml.txt'), 'x');
    mkdirSync(join(d, 'sub.yaml.d'));
    const missing = join(d, 'missing');
    const { toolsets, failures } = loadYamlToolsets([d, missing]);
    expect(toolsets.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(failures).toEqual([
      {
        name: missing,
        origin: missing,
        state: 'failed',
        reason: expect.stringMatching(/^cannot read folder: ENOENT/),
        tools: [],
      },
    ]);
  });

  it('names a broken file after it, without its extension', () => {
    const d = mkdtempSync(join(tmpdir(), 'lestrade-reg-'));
    writeFileSync(join(d, 'broken.yml.yaml'), 'name: broken\n');
    writeFileSync(join(d, 'other.yml'), 'name: other\n');
    expect(loadYamlToolsets([d]).failures).toEqual([
      {
        name: 'broken.yml',
        origin: join(d, 'broken.yml.yaml'),
        state: 'failed',
        reason: expect.stringContaining('broken.yml.yaml: '),
        tools: [],
      },
      {
        name: 'other',
        origin: join(d, 'other.yml'),
        state: 'failed',
        reason: expect.stringContaining('other.yml: '),
        tools: [],
      },
    ]);
  });

  it('lets settings switch a toolset on or off, whatever its file says, and reports failures last', async () => {
    const on = load(TOOLSET('on', 't1'));
    const off = load(TOOLSET('off', 't2', 'enabled: false\n'));
    const r = await resolveToolsets(
      [on, off],
      { on: { enabled: false }, off: { enabled: true }, other: { enabled: false } },
      {},
      [{ name: 'x', origin: 'x.yaml', state: 'failed', reason: 'bad', tools: [] }],
    );
    expect(r.statuses).toEqual([
      { name: 'on', origin: on.origin, tools: ['t1'], state: 'disabled', reason: 'switched off in configuration' },
      { name: 'off', origin: off.origin, tools: ['t2'], state: 'enabled' },
      { name: 'x', origin: 'x.yaml', state: 'failed', reason: 'bad', tools: [] },
    ]);
    expect(r.enabled.map((t) => t.name)).toEqual(['off']);
    expect(r.tools.map((t) => t.name)).toEqual(['t2']);
    const plain = await resolveToolsets([on], {}, {});
    expect(plain.statuses[0]).toEqual({ name: 'on', origin: on.origin, tools: ['t1'], state: 'enabled' });
    expect(plain.statuses[0]).not.toHaveProperty('reason');
  });

  it("reports the first toolset's prerequisite that fails, and the toolset that defines a tool again", async () => {
    const needs = load(TOOLSET('needs', 'n1', 'prerequisites: [ { env: [LESTRADE_ABSENT] } ]\n'));
    const first = load(TOOLSET('first', 'same'));
    const second = load(
      `name: second\ndescription: d\ntools: [ { name: own, description: d, command: [echo] }, { name: same, description: d, command: [echo] } ]\n`,
    );
    const r = await resolveToolsets([needs, first, second], {}, {});
    expect(r.statuses.map((s) => [s.name, s.state, s.reason])).toEqual([
      ['needs', 'disabled', 'prerequisite not met: environment variable not set: LESTRADE_ABSENT'],
      ['first', 'enabled', undefined],
      ['second', 'failed', 'tool same is already defined by toolset first'],
    ]);
    expect(r.tools.map((t) => t.name)).toEqual(['same']);
  });
});

describe('a YAML tool and links', () => {
  it('vouches for the hosts its output names unless it says vouchesForLinks: false', async () => {
    const ts = load(
      [
        'name: links',
        'description: d',
        'tools:',
        '  - { name: reads, description: d, params: { t: { type: string } }, command: [echo, "{{ t }}"] }',
        '  - { name: echoes, description: d, vouchesForLinks: false, params: { t: { type: string } }, command: [echo, "{{ t }}"] }',
      ].join('\n'),
    );
    expect(ts.tools.map((t) => [t.name, t.vouchesForLinks])).toEqual([
      ['reads', true],
      ['echoes', false],
    ]);
    expect(await call(ts, 'reads', { t: 'https://a.example' })).toMatchObject({ status: 'success', vouches: true });
    expect((await call(ts, 'echoes', { t: 'https://a.example' })).vouches).toBeUndefined();
  });
});
