import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { PrometheusMetrics } from '../../../../src/exporter/prometheus-metrics.js';
import { exportedSeriesNames, metricNames } from '../../../helpers/promql-names.js';
import { requireBinary } from '../../../helpers/require-binary.js';

const DIR = fileURLToPath(new URL('../../../../deploy/monitoring/', import.meta.url));
const RULES = `${DIR}lestrade-rules.yml`;
const RULE_TESTS = `${DIR}lestrade-rules.test.yml`;
const DASHBOARD = `${DIR}lestrade-dashboard.json`;

interface Panel {
  title: string;
  type: string;
  targets?: Array<{ expr: string }>;
}

async function exported(): Promise<Set<string>> {
  const m = new PrometheusMetrics({
    version: 'test',
    pricing: { currency: 'USD', models: {} },
    sharedState: async () => ({ queues: [], approvalsPending: 0, oldestApprovalSeconds: null, budgetHeld: 0 }),
  });
  const json = await m.registry.getMetricsAsJSON();
  return exportedSeriesNames(json.map((x) => ({ name: x.name, type: String(x.type) })));
}

function dashboardExprs(): Array<{ panel: string; expr: string }> {
  const dash = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };
  return dash.panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
}

function ruleExprs(): Array<{ alert: string; expr: string }> {
  const doc = parseYaml(readFileSync(RULES, 'utf8')) as {
    groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
  };
  return doc.groups.flatMap((g) => g.rules);
}

describe('metric names in PromQL', () => {
  it('finds the metrics of an expression and nothing else', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le, source) (rate(lestrade_webhook_duration_seconds_bucket{job=~"$job", a="b(c)"}[$__rate_interval])))',
      ),
    ).toEqual(['lestrade_webhook_duration_seconds_bucket']);
    expect(metricNames('max(a_total{x="1"}) / on() sum without (y) (b) > 0 and on(z) c offset 5m').sort()).toEqual([
      'a_total',
      'b',
      'c',
    ]);
  });
});

describe('the Grafana dashboard (deploy/monitoring/lestrade-dashboard.json)', () => {
  it('queries only metrics Lestrade exports', async () => {
    const names = await exported();
    const unknown = dashboardExprs().flatMap(({ panel, expr }) =>
      metricNames(expr)
        .filter((n) => !names.has(n))
        .map((n) => `${panel}: ${n}`),
    );
    expect(unknown).toEqual([]);
  });

  it('shows every lestrade_* metric somewhere', async () => {
    const used = new Set(dashboardExprs().flatMap(({ expr }) => metricNames(expr)));
    const json = await new PrometheusMetrics({
      version: 'test',
      pricing: { currency: 'USD', models: {} },
    }).registry.getMetricsAsJSON();
    const own = json.map((m) => m.name).filter((n) => n.startsWith('lestrade_'));
    expect(own.length).toBeGreaterThan(15);
    const missing = own.filter((n) => !used.has(n) && !used.has(`${n}_bucket`) && !used.has(`${n}_sum`));
    expect(missing).toEqual([]);
  });

  it('has a panel for each part of the brief', () => {
    const titles = JSON.parse(readFileSync(DASHBOARD, 'utf8'))
      .panels.map((p: Panel) => p.title)
      .join('\n');
    for (const t of [
      'Jobs by queue',
      'Runs ended',
      'LLM requests',
      'Tokens',
      'Cost',
      'Tool calls',
      'Write-backs',
      'Approvals',
      'RCA verdicts',
    ])
      expect(titles).toContain(t);
  });
});

describe('the alerting rules (deploy/monitoring/lestrade-rules.yml)', () => {
  it('pass promtool check rules', () => {
    const out = execFileSync(requireBinary('promtool'), ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(out).toMatch(new RegExp(`SUCCESS: ${ruleExprs().length} rules found`));
  });

  it('pass their unit tests (promtool test rules)', () => {
    const out = execFileSync(requireBinary('promtool'), ['test', 'rules', RULE_TESTS], {
      encoding: 'utf8',
      cwd: DIR,
    });
    expect(out).toMatch(/SUCCESS/);
  });

  it('each have a promtool case where they fire and one where they stay silent', () => {
    const doc = parseYaml(readFileSync(RULE_TESTS, 'utf8')) as {
      tests: Array<{ alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] | null }> }>;
    };
    const cases = doc.tests.flatMap((t) => t.alert_rule_test ?? []);
    const fires = new Set(cases.filter((c) => (c.exp_alerts ?? []).length > 0).map((c) => c.alertname));
    const silent = new Set(cases.filter((c) => (c.exp_alerts ?? []).length === 0).map((c) => c.alertname));
    const alerts = ruleExprs().map((r) => r.alert);
    expect(alerts.filter((a) => !fires.has(a)).map((a) => `${a}: no case where it fires`)).toEqual([]);
    expect(alerts.filter((a) => !silent.has(a)).map((a) => `${a}: no case where it stays silent`)).toEqual([]);
    // A case for an alert that no longer exists tests nothing.
    expect([...fires, ...silent].filter((a) => !alerts.includes(a))).toEqual([]);
  });

  it('read only metrics Lestrade exports (and up)', async () => {
    const names = new Set([...(await exported()), 'up']);
    const unknown = ruleExprs().flatMap(({ alert, expr }) =>
      metricNames(expr)
        .filter((n) => !names.has(n))
        .map((n) => `${alert}: ${n}`),
    );
    expect(unknown).toEqual([]);
  });

  it('cover what the issues named, each with a summary and a description', () => {
    const rules = parseYaml(readFileSync(RULES, 'utf8')).groups.flatMap((g: { rules: unknown[] }) => g.rules) as Array<{
      alert: string;
      annotations: Record<string, string>;
    }>;
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        'LestradeQueueBackingUp',
        'LestradeLlmFailing',
        'LestradeWriteBacksFailing',
        'LestradeApprovalsWaitingTooLong',
        'LestradeInvestigationsStuck',
        'LestradeDown',
        'LestradeMetricsAbsent',
      ]),
    );
    for (const r of rules) expect(Object.keys(r.annotations).sort()).toEqual(['description', 'summary']);
  });
});
