import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { loadYamlToolsets, resolveToolsets } from '../../../../src/tools/toolset-registry.js';
import { freePort } from '../../../helpers/free-port.js';

// docs/toolsets.md's own YAML toolset example, loaded as written: its env prerequisite, its HTTP
// prerequisite (rendered with the environment Lestrade was started with, not process.env) and its
// HTTP tool.

const DOC = readFileSync(new URL('../../../../docs/toolsets.md', import.meta.url), 'utf8');
const EXAMPLE = /```yaml\n(name: my-service\n[\s\S]*?)```/.exec(DOC)![1]!;

let server: Server;
let base: string;
let seen: Array<{ path: string; headers: IncomingHttpHeaders }>;
let health: number | 'hang';

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url!, headers: req.headers });
    if (req.url === '/healthz') {
      if (health === 'hang') return;
      res.writeHead(health).end('ok');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('[{"version":"v2.14.0"}]');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  seen = [];
  health = 200;
});

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-yaml-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

async function resolve(files: Record<string, string>, env: Record<string, string | undefined>) {
  const { toolsets, failures } = loadYamlToolsets([folder(files)], env);
  expect(failures).toEqual([]);
  return resolveToolsets(toolsets, {}, env);
}

describe("docs/toolsets.md's YAML toolset", () => {
  it('is enabled when its service answers its health check, and its HTTP tool calls that service', async () => {
    expect(process.env.MY_SERVICE_URL).toBeUndefined();
    const env = { MY_SERVICE_URL: base, MY_SERVICE_TOKEN: 'tok-123' };
    const r = await resolve({ 'my-service.yaml': EXAMPLE }, env);
    expect(r.statuses).toEqual([
      expect.objectContaining({
        name: 'my-service',
        state: 'enabled',
        tools: ['my_service_deploys', 'my_service_logs'],
      }),
    ]);
    expect(seen.map((s) => s.path)).toEqual(['/healthz']);
    const exec = new ToolExecutor({ tools: r.tools });
    const out = await exec.execute({ id: '1', name: 'my_service_deploys', arguments: '{"component":"checkout"}' });
    expect(out).toMatchObject({ status: 'success', data: '[{"version":"v2.14.0"}]' });
    expect(seen[1]).toMatchObject({
      path: '/api/deploys?component=checkout&limit=10',
      headers: { authorization: 'Bearer tok-123' },
    });
  });

  it('is disabled, saying why, when its health check answers an error status', async () => {
    health = 503;
    const r = await resolve({ 'my-service.yaml': EXAMPLE }, { MY_SERVICE_URL: base, MY_SERVICE_TOKEN: 't' });
    expect(r.statuses[0]).toMatchObject({
      state: 'disabled',
      reason: `prerequisite not met: ${base}/healthz answered HTTP 503`,
    });
    expect(r.tools).toEqual([]);
  });

  it('is disabled when nothing answers there', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const r = await resolve({ 'my-service.yaml': EXAMPLE }, { MY_SERVICE_URL: url });
    expect(r.statuses[0]).toMatchObject({
      state: 'disabled',
      reason: `prerequisite not met: ${url}/healthz did not answer: ECONNREFUSED`,
    });
  });

  it('is disabled by its env prerequisite, before any request, when the variable is not set', async () => {
    const r = await resolve({ 'my-service.yaml': EXAMPLE }, {});
    expect(r.statuses[0]).toMatchObject({
      state: 'disabled',
      reason: 'prerequisite not met: environment variable not set: MY_SERVICE_URL',
    });
    expect(seen).toEqual([]);
  });
});

describe('an HTTP prerequisite', () => {
  const yaml = (prereq: string) =>
    `name: svc\ndescription: d\nprerequisites:\n  - ${prereq}\ntools: [ { name: t, description: d, command: [echo] } ]\n`;

  it('sends credentials in its URL as basic auth, and never shows the password', async () => {
    health = 401;
    const env = { SVC_URL: base.replace('http://', 'http://reader:s3cr%40t@') };
    const r = await resolve({ 'svc.yaml': yaml('http: "{{ env.SVC_URL }}/healthz"') }, env);
    expect(seen[0]!.headers.authorization).toBe(`Basic ${Buffer.from('reader:s3cr@t').toString('base64')}`);
    expect(r.statuses[0]!.reason).toBe(
      `prerequisite not met: ${base.replace('http://', 'http://reader:***@')}/healthz answered HTTP 401`,
    );
    expect(JSON.stringify(r.statuses)).not.toContain('s3cr');
  });

  it('never shows the query or fragment of its URL, where a token from the environment may ride', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const env = { SVC_URL: url, SVC_KEY: 'q-s3cret-key' };
    const r = await resolve({ 'svc.yaml': yaml('http: "{{ env.SVC_URL }}/healthz?api_key={{ env.SVC_KEY }}#x"') }, env);
    expect(r.statuses[0]!.reason).toBe(`prerequisite not met: ${url}/healthz did not answer: ECONNREFUSED`);
  });

  it("renders its headers with the environment; an explicit Authorization wins over the URL's", async () => {
    const env = { SVC_URL: base.replace('http://', 'http://u:p@'), SVC_TOKEN: 'abc' };
    const r = await resolve(
      {
        'svc.yaml': yaml(
          'http: "{{ env.SVC_URL }}/healthz"\n    headers: { Authorization: "Bearer {{ env.SVC_TOKEN }}", X-Probe: lestrade }',
        ),
      },
      env,
    );
    expect(r.statuses[0]!.state).toBe('enabled');
    expect(seen[0]!.headers).toMatchObject({ authorization: 'Bearer abc', 'x-probe': 'lestrade' });
  });

  it('gives up after its timeout', async () => {
    health = 'hang';
    const started = Date.now();
    const r = await resolve(
      { 'svc.yaml': yaml('http: "{{ env.SVC_URL }}/healthz"\n    timeoutSeconds: 0.3') },
      { SVC_URL: base },
    );
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(r.statuses[0]).toMatchObject({
      state: 'disabled',
      reason: expect.stringMatching(
        new RegExp(`^prerequisite not met: ${base}/healthz did not answer: .*timeout`, 'i'),
      ),
    });
  });

  it('that cannot be rendered (a variable not set) disables the toolset without a request', async () => {
    const r = await resolve({ 'svc.yaml': yaml('http: "{{ env.NOT_SET_ANYWHERE }}/healthz"') }, {});
    expect(r.statuses[0]).toMatchObject({
      state: 'disabled',
      reason: expect.stringMatching(/^prerequisite not met: \(url\) did not answer: [\s\S]*undefined value/),
    });
    expect(seen).toEqual([]);
  });
});
