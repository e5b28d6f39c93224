import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { resolveToolsets } from '../../../../src/tools/toolset-registry.js';
import { createPrometheusToolset } from '../../../../toolsets/prometheus/index.js';
import { freePort } from '../../../helpers/free-port.js';
import { startPrometheus, type TestPrometheus } from '../../../helpers/prometheus.js';
import { waitFor } from '../../../helpers/service.js';

let prom: TestPrometheus;
let exec: ToolExecutor;
const call = (name: string, args: Record<string, unknown>) =>
  exec.execute({ id: 'c', name, arguments: JSON.stringify(args) });

beforeAll(async () => {
  prom = await startPrometheus();
  exec = new ToolExecutor({ tools: createPrometheusToolset({ url: prom.url }).tools });
  await waitFor('first scrape', async () => (await call('prometheus_query', { query: 'up' })).status === 'success');
}, 60_000);
afterAll(async () => {
  await prom?.stop();
});

describe('prometheus toolset against a real Prometheus', () => {
  it('runs an instant query whose PromQL parameter is named query', async () => {
    const r = await call('prometheus_query', { query: 'up{job="prometheus"}' });
    expect(r).toMatchObject({ status: 'success', params: { query: 'up{job="prometheus"}' } });
    expect(JSON.parse(r.data!)).toMatchObject({
      resultType: 'vector',
      result: [{ metric: { job: 'prometheus' }, value: [expect.any(Number), '1'] }],
    });
  });

  it("says no_data when a query matches nothing, and error with Prometheus' reason for bad PromQL", async () => {
    expect(await call('prometheus_query', { query: 'up{job="does-not-exist"}' })).toMatchObject({ status: 'no_data' });
    const bad = await call('prometheus_query', { query: 'up{' });
    expect(bad.status).toBe('error');
    expect(bad.error).toMatch(/bad_data/);
  });

  it('runs a range query', async () => {
    const now = Math.floor(Date.now() / 1000);
    const r = await call('prometheus_query_range', {
      query: 'up',
      start: String(now - 60),
      end: String(now + 5),
      step: '5s',
    });
    expect(r.status).toBe('success');
    expect(JSON.parse(r.data!).resultType).toBe('matrix');
  });

  it('lists firing alerts and rules', async () => {
    const alerts = await waitFor('the rule to fire', async () => {
      const r = await call('prometheus_alerts', {});
      return r.status === 'success' && r;
    });
    expect(alerts.data).toContain('PrometheusSelfScrapeUp');
    const rules = await call('prometheus_rules', { type: 'alert' });
    expect(rules.status).toBe('success');
    expect(rules.data).toContain('up{job=\\"prometheus\\"} == 1');
  });

  it('lists label values, and no_data for a label nobody has', async () => {
    const jobs = await call('prometheus_label_values', { label: 'job' });
    expect(JSON.parse(jobs.data!)).toEqual(['prometheus']);
    expect((await call('prometheus_label_values', { label: 'nobody_has_this' })).status).toBe('no_data');
    expect((await call('prometheus_label_values', { label: 'bad label' })).error).toMatch(/^invalid arguments: label/);
  });

  it('is enabled when Prometheus answers, disabled with the reason when it does not or has no URL', async () => {
    const deadPort = await freePort();
    const resolved = await resolveToolsets([createPrometheusToolset({ url: prom.url })], {}, {});
    expect(resolved.statuses[0]).toMatchObject({ state: 'enabled' });
    const dead = await resolveToolsets([createPrometheusToolset({ url: `http://127.0.0.1:${deadPort}` })], {}, {});
    expect(dead.statuses[0]).toMatchObject({
      state: 'disabled',
      reason: expect.stringMatching(/did not answer: ECONNREFUSED/),
    });
    expect(dead.tools).toEqual([]);
    const none = await resolveToolsets([createPrometheusToolset({})], {}, {});
    expect(none.statuses[0]!.reason).toMatch(/PROMETHEUS_URL/);
  });
});

describe('prometheus toolset with credentials in its URL', () => {
  it('sends them as basic auth to the URL without them, and never shows the password', async () => {
    const seen: Array<{ url: string; headers: IncomingHttpHeaders }> = [];
    const expected = `Basic ${Buffer.from('reader:p@ss w/rd').toString('base64')}`;
    const server = createServer((req, res) => {
      seen.push({ url: req.url!, headers: req.headers });
      if (req.headers.authorization !== expected) {
        res.writeHead(401).end('unauthorized');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          status: 'success',
          data: { resultType: 'vector', result: [{ metric: {}, value: [1, '1'] }] },
        }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    try {
      const url = `http://reader:${encodeURIComponent('p@ss w/rd')}@127.0.0.1:${port}`;
      const resolved = await resolveToolsets([createPrometheusToolset({ url })], {}, {});
      expect(resolved.statuses[0]).toMatchObject({ state: 'enabled' });
      const r = await new ToolExecutor({ tools: resolved.tools }).execute({
        id: 'c',
        name: 'prometheus_query',
        arguments: '{"query":"up"}',
      });
      expect(r.status).toBe('success');
      expect(seen.map((s) => s.url)).toEqual(['/api/v1/status/buildinfo', '/api/v1/query?query=up']);
      const dead = await freePort();
      const down = await resolveToolsets(
        [createPrometheusToolset({ url: `http://reader:secret-pw@127.0.0.1:${dead}` })],
        {},
        {},
      );
      expect(down.statuses[0]!.reason).toMatch(
        new RegExp(`Prometheus at http://reader:\\*\\*\\*@127\\.0\\.0\\.1:${dead}/ did not answer: ECONNREFUSED`),
      );
      expect(down.statuses[0]!.reason).not.toContain('secret-pw');
    } finally {
      server.close();
    }
  });
});
