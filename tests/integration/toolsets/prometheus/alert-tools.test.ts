import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { createAlertmanagerToolset } from '../../../../toolsets/alertmanager/index.js';
import { createPrometheusToolset } from '../../../../toolsets/prometheus/index.js';
import { startAlertmanager, type TestAlertmanager } from '../../../helpers/alertmanager.js';
import { freePort } from '../../../helpers/free-port.js';
import { startPrometheus, type TestPrometheus } from '../../../helpers/prometheus.js';
import { waitFor } from '../../../helpers/service.js';

// The Prometheus toolset's alert tools against a real Prometheus (Debian's) with a rule file and a target that
// is down, sending its alerts to a real Alertmanager (so an alert's generatorURL is Prometheus' own).

const RULES = `groups:
  - name: lestrade-alert-tools
    interval: 1s
    rules:
      - alert: SelfScrapeUp
        expr: up{job="prometheus"} == 1
        labels: { severity: warning }
        annotations: { summary: Prometheus scrapes itself, dashboard: "https://grafana/d/1" }
      - alert: NeverFires
        expr: absent(up{job="prometheus"})
        for: 5m
`;

let am: TestAlertmanager;
let prom: TestPrometheus;
let exec: ToolExecutor;
let elsewhere: Server;
let elsewhereHits = 0;

async function call(name: string, args: Record<string, unknown>) {
  const res = await exec.execute({ id: 'c', name, arguments: JSON.stringify(args) });
  return typeof res.data === 'string' ? { ...res, data: JSON.parse(res.data) } : { ...res, data: undefined as any };
}

beforeAll(async () => {
  am = await startAlertmanager({ webhookUrl: 'http://127.0.0.1:9/unused', token: 't', groupWait: '30s' });
  const dead = `127.0.0.1:${await freePort()}`;
  prom = await startPrometheus({ alertmanagerPort: am.port, rules: RULES, scrape: [{ job: 'dead', target: dead }] });
  elsewhere = createServer((_req, res) => {
    elsewhereHits += 1;
    res.end('{}');
  });
  await new Promise<void>((r) => elsewhere.listen(0, '127.0.0.1', () => r()));
  const tools = [
    ...createPrometheusToolset({ url: prom.url }).tools,
    ...createAlertmanagerToolset({ url: am.url, maxSilenceHours: 1 }).tools,
  ];
  exec = new ToolExecutor({ tools });
  await waitFor('SelfScrapeUp firing', async () => {
    const r = await call('prometheus_alert_rules', { name: 'selfscrape', state: 'firing' });
    return r.status === 'success';
  });
}, 60_000);
afterAll(async () => {
  elsewhere?.close();
  await prom?.stop();
  await am?.stop();
});

describe("Prometheus' alerting rules, targets and the series an alert reads", () => {
  it('lists alerting rules with their state, expression, for, labels, summary and active alerts', async () => {
    const firing = await call('prometheus_alert_rules', { name: 'SelfScrape' });
    expect(firing).toMatchObject({ status: 'success', data: { total: 1 } });
    expect(firing.data.rules[0]).toEqual({
      group: 'lestrade-alert-tools',
      name: 'SelfScrapeUp',
      state: 'firing',
      expr: 'up{job="prometheus"} == 1',
      labels: { severity: 'warning' },
      summary: 'Prometheus scrapes itself',
      health: 'ok',
      alertCount: 1,
      alerts: [
        {
          labels: expect.objectContaining({ alertname: 'SelfScrapeUp', job: 'prometheus' }),
          state: 'firing',
          activeAt: expect.any(String),
          value: expect.stringMatching(/^1(e\+00)?$/),
        },
      ],
    });
    expect((await call('prometheus_alert_rules', { state: 'inactive' })).data.rules).toEqual([
      expect.objectContaining({ name: 'NeverFires', for: '300s', alertCount: 0, alerts: [] }),
    ]);
    expect(await call('prometheus_alert_rules', { state: 'pending' })).toMatchObject({ status: 'no_data' });
  });

  it('lists target health, down targets first with their last error', async () => {
    await waitFor('the dead target scraped', async () => {
      const r = await call('prometheus_targets', { health: 'down' });
      return r.status === 'success';
    });
    const r = await call('prometheus_targets', {});
    expect(r.data.byHealth).toEqual({ down: 1, up: 1 });
    expect(r.data.targets).toEqual([
      {
        job: 'dead',
        instance: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
        health: 'down',
        lastError: expect.stringMatching(/connection refused/),
        lastScrape: expect.any(String),
      },
      { job: 'prometheus', instance: `127.0.0.1:${prom.port}`, health: 'up', lastScrape: expect.any(String) },
    ]);
    expect(await call('prometheus_targets', { job: 'nope' })).toMatchObject({ status: 'no_data' });
  });

  it("reads an alert's expression from the generatorURL Alertmanager holds, and queries our Prometheus with it", async () => {
    const alerts = await waitFor('the alert in Alertmanager', async () => {
      const r = await call('alertmanager_alerts', { matchers: ['alertname="SelfScrapeUp"'] });
      return r.status === 'success' && r.data.alerts;
    });
    const generatorURL = alerts[0].generatorURL as string;
    expect(generatorURL).toContain('g0.expr=');
    const r = await call('alert_expression_series', { generatorURL });
    expect(r).toMatchObject({ status: 'success' });
    expect(r.data).toMatchObject({
      expression: 'up{job="prometheus"} == 1',
      value: { resultType: 'vector', seriesCount: 1 },
      selectors: [
        {
          selector: 'up{job="prometheus"}',
          seriesCount: 1,
          series: [expect.objectContaining({ __name__: 'up', job: 'prometheus' })],
        },
      ],
    });
  });

  it('never contacts the host a generatorURL names, and shows a selector that matches nothing', async () => {
    const at = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    const expr = 'rate(lestrade_missing_total[5m]) > 0 or up{job="dead"}';
    const r = await call('alert_expression_series', {
      generatorURL: `${at}/graph?g0.expr=${encodeURIComponent(expr)}&g0.tab=1`,
    });
    expect(r.data.selectors).toEqual([
      { selector: 'lestrade_missing_total', seriesCount: 0, series: [] },
      { selector: 'up{job="dead"}', seriesCount: 1, series: [expect.objectContaining({ job: 'dead' })] },
    ]);
    expect(elsewhereHits).toBe(0);
  });

  it('says what is wrong with what it was given, before querying', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /exactly one of generatorURL or expression/],
      [{ expression: 'up', generatorURL: 'http://p/graph?g0.expr=up' }, /exactly one/],
      [{ expression: 'sum(up' }, /does not parse/],
      [{ generatorURL: 'http://p/graph?g1.expr=up' }, /no g0\.expr/],
    ];
    for (const [args, error] of cases)
      expect(await call('alert_expression_series', args), JSON.stringify(args)).toMatchObject({
        status: 'error',
        error: expect.stringMatching(error),
      });
  });
});
