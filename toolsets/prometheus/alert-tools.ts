import { z } from 'zod';
import type { Tool, ToolOutput } from '../../src/tools/types.js';
import { expressionFromGeneratorUrl, vectorSelectors } from './expression-selectors.js';
import type { PrometheusClient } from './prometheus-client.js';

/** Tools for an alert's side of Prometheus: its rules and their state, the targets, the series an alert reads. */
export function alertTools(client: PrometheusClient | null): Tool[] {
  return [alertRulesTool(client), targetsTool(client), expressionSeriesTool(client)];
}

interface PromAlert {
  labels?: Record<string, string>;
  state?: string;
  activeAt?: string;
  value?: string;
}
interface PromRule {
  name?: string;
  query?: string;
  duration?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  state?: string;
  health?: string;
  lastError?: string;
  alerts?: PromAlert[];
}

const ALERTS_PER_RULE = 5;

function alertRulesTool(client: PrometheusClient | null): Tool {
  return {
    name: 'prometheus_alert_rules',
    description:
      'List alerting rules with their state (firing, pending, inactive), expression, for, labels, summary, ' +
      'health and last evaluation error, and their active alerts; optionally only rules whose name contains `name`.',
    params: z.strictObject({
      name: z.string().max(200).optional().describe('part of the alert name, case-insensitive'),
      state: z.enum(['firing', 'pending', 'inactive']).optional(),
      limit: z.int().min(1).max(500).default(50),
    }),
    async run(p, ctx): Promise<ToolOutput> {
      const data = (await client!.get('rules', { type: 'alert' }, ctx.signal)) as {
        groups?: Array<{ name?: string; file?: string; rules?: PromRule[] }>;
      };
      const name = (p.name as string | undefined)?.toLowerCase();
      const rules = (data.groups ?? [])
        .flatMap((g) => (g.rules ?? []).map((r) => ({ group: g.name, rule: r })))
        .filter(
          ({ rule }) =>
            (!name || (rule.name ?? '').toLowerCase().includes(name)) && (!p.state || rule.state === p.state),
        )
        .map(({ group, rule }) => compactRule(group, rule));
      const shown = rules.slice(0, p.limit as number);
      const out = { total: rules.length, shown: shown.length, rules: shown };
      return rules.length === 0 ? { status: 'no_data', data: out } : { status: 'success', data: out };
    },
  };
}

function compactRule(group: string | undefined, r: PromRule): Record<string, unknown> {
  const alerts = r.alerts ?? [];
  return {
    group,
    name: r.name,
    state: r.state,
    expr: r.query,
    ...(r.duration ? { for: `${r.duration}s` } : {}),
    ...(r.labels && Object.keys(r.labels).length ? { labels: r.labels } : {}),
    ...(r.annotations?.summary ? { summary: r.annotations.summary } : {}),
    health: r.health,
    ...(r.lastError ? { lastError: r.lastError } : {}),
    alertCount: alerts.length,
    alerts: alerts.slice(0, ALERTS_PER_RULE).map((a) => ({
      labels: a.labels,
      state: a.state,
      activeAt: a.activeAt,
      value: a.value,
    })),
  };
}

interface PromTarget {
  labels?: Record<string, string>;
  scrapePool?: string;
  health?: string;
  lastError?: string;
  lastScrape?: string;
}

function targetsTool(client: PrometheusClient | null): Tool {
  return {
    name: 'prometheus_targets',
    description:
      "List the active scrape targets' health (up, down, unknown) with the last scrape error, down ones first; " +
      'optionally one job or one health.',
    params: z.strictObject({
      job: z.string().max(200).optional().describe('only this job'),
      health: z.enum(['up', 'down', 'unknown']).optional(),
      limit: z.int().min(1).max(1000).default(100),
    }),
    async run(p, ctx): Promise<ToolOutput> {
      const data = (await client!.get('targets', { state: 'active' }, ctx.signal)) as { activeTargets?: PromTarget[] };
      const all = (data.activeTargets ?? []).map((t) => ({
        job: t.labels?.job ?? t.scrapePool,
        instance: t.labels?.instance,
        health: t.health ?? 'unknown',
        ...(t.lastError ? { lastError: t.lastError } : {}),
        lastScrape: t.lastScrape,
      }));
      const byHealth: Record<string, number> = {};
      for (const t of all) byHealth[t.health] = (byHealth[t.health] ?? 0) + 1;
      const rank = (h: string) => ['down', 'unknown', 'up'].indexOf(h);
      const targets = all
        .filter((t) => (!p.job || t.job === p.job) && (!p.health || t.health === p.health))
        .sort((a, b) => rank(a.health) - rank(b.health));
      const shown = targets.slice(0, p.limit as number);
      const out = { total: targets.length, byHealth, shown: shown.length, targets: shown };
      return targets.length === 0 ? { status: 'no_data', data: out } : { status: 'success', data: out };
    },
  };
}

const expressionParams = z.strictObject({
  generatorURL: z.string().max(8000).optional().describe("the alert's generatorURL (…/graph?g0.expr=…)"),
  expression: z.string().max(4000).optional().describe('a PromQL expression, instead of generatorURL'),
  lookbackMinutes: z.int().min(1).max(10_080).default(60).describe('series seen in this many minutes up to now'),
  seriesPerSelector: z.int().min(1).max(200).default(20),
});

function expressionSeriesTool(client: PrometheusClient | null): Tool {
  return {
    name: 'alert_expression_series',
    description:
      "Take an alert's expression (from its generatorURL, or given) and return, for each series selector in it, " +
      "the series Prometheus has (none means the metric or label is missing), and the expression's value now. " +
      "Only the URL's expression is used: the configured Prometheus is queried, never the URL's host.",
    params: expressionParams,
    async run(raw, ctx): Promise<ToolOutput> {
      const p = raw as z.infer<typeof expressionParams>;
      if ((p.generatorURL === undefined) === (p.expression === undefined))
        return { status: 'error', error: 'give exactly one of generatorURL or expression' };
      const source =
        p.generatorURL !== undefined ? expressionFromGeneratorUrl(p.generatorURL) : { expression: p.expression! };
      if ('error' in source) return { status: 'error', error: source.error };
      const parsed = vectorSelectors(source.expression);
      if ('error' in parsed) return { status: 'error', error: parsed.error };
      // No end: Prometheus then reads up to its newest sample (a whole-second "now" can fall before it).
      const start = String(Math.floor(Date.now() / 1000) - p.lookbackMinutes * 60);
      const selectors = await Promise.all(
        parsed.selectors.map(async (selector) => {
          const series = (await client!.get('series', { 'match[]': selector, start }, ctx.signal)) as unknown[];
          return { selector, seriesCount: series.length, series: series.slice(0, p.seriesPerSelector) };
        }),
      );
      const value = (await client!.get('query', { query: source.expression }, ctx.signal)) as {
        resultType?: string;
        result?: unknown[];
      };
      const result = value.result ?? [];
      const data = {
        expression: source.expression,
        value: { resultType: value.resultType, seriesCount: result.length, result: result.slice(0, 20) },
        selectors,
      };
      return { status: 'success', data };
    },
  };
}
