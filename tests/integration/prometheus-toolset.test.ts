import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../../src/tools/tool-executor.js';
import { resolveToolsets } from '../../src/tools/toolset-registry.js';
import { createPrometheusToolset } from '../../toolsets/prometheus/index.js';
import { freePort } from '../helpers/free-port.js';
import { startPrometheus, type TestPrometheus } from '../helpers/prometheus.js';
import { waitFor } from '../helpers/service.js';

let prom: TestPrometheus;
let exec: ToolExecutor;
const call = (name: string, args: Record<string, unknown>) => exec.execute({ id: 'c', name, arguments: JSON.stringify(args) });

beforeAll(async () => {
  prom = await startPrometheus();
  exec = new ToolExecutor({ tools: createPrometheusToolset({ url: prom.url }).tools });
  await waitFor('first scrape', async () => (await call('prometheus_query', { query: 'up' })).status === 'success');
}, 60_000);
afterAll(async () => { await prom?.stop(); });

describe('prometheus toolset against a real Prometheus', () => {
  it('runs an instant query whose PromQL parameter is named query', async () => {
    const r = await call('prometheus_query', { query: 'up{job="prometheus"}' });
    expect(r).toMatchObject({ status: 'success', params: { query: 'up{job="prometheus"}' } });
    expect(JSON.parse(r.data!)).toMatchObject({ resultType: 'vector', result: [{ metric: { job: 'prometheus' }, value: [expect.any(Number), '1'] }] });
  });

  it('says no_data when a query matches nothing, and error with Prometheus\' reason for bad PromQL', async () => {
    expect(await call('prometheus_query', { query: 'up{job="does-not-exist"}' })).toMatchObject({ status: 'no_data' });
    const bad = await call('prometheus_query', { query: 'up{' });
    expect(bad.status).toBe('error');
    expect(bad.error).toMatch(/bad_data/);
  });

  it('runs a range query', async () => {
    const now = Math.floor(Date.now() / 1000);
    const r = await call('prometheus_query_range', { query: 'up', start: String(now - 60), end: String(now + 5), step: '5s' });
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
    const resolved = await resolveToolsets([
      createPrometheusToolset({ url: prom.url }),
    ], {}, {});
    expect(resolved.statuses[0]).toMatchObject({ state: 'enabled' });
    const dead = await resolveToolsets([createPrometheusToolset({ url: `http://127.0.0.1:${deadPort}` })], {}, {});
    expect(dead.statuses[0]).toMatchObject({ state: 'disabled', reason: expect.stringMatching(/did not answer: ECONNREFUSED/) });
    expect(dead.tools).toEqual([]);
    const none = await resolveToolsets([createPrometheusToolset({})], {}, {});
    expect(none.statuses[0]!.reason).toMatch(/PROMETHEUS_URL/);
  });
});
