import { z } from 'zod';
import type { Tool, ToolOutput, Toolset } from '../../src/tools/types.js';
import { alertTools } from './alert-tools.js';
import { PrometheusClient } from './prometheus-client.js';
import { readsOutside } from '../../src/tools/reads-outside.js';
import { fromInstances } from '../../src/tools/instanced-toolset.js';
import { DEFAULT_INSTANCE } from '../../src/tools/pick-instance.js';
import type { PrometheusSettings } from './config.js';

export interface PrometheusToolsetConfig {
  url?: string;
  headers?: Record<string, string>;
}

const time = z.string().describe('RFC 3339 timestamp or Unix seconds');

const INSTRUCTIONS = [
  'Find metric and label names with prometheus_label_values (label __name__, with a match selector) before querying',
  'them: never guess a name. For an alert, start with alert_expression_series on its generatorURL: it shows which',
  'series the expression reads exist (none means a metric or label is gone) and its value now. prometheus_alert_rules',
  'gives the rule, threshold and state; prometheus_targets shows scrapes that fail. Query over the window around the',
  "alert's start with prometheus_query_range (step 1m for an hour or less); aggregate (sum by, topk) before",
  'returning many series.',
].join('\n');

/** Prometheus as configured: one server (`url`), or several by name (`instances`), one set of tools either way. */
export function createPrometheusToolsets(cfg: PrometheusSettings): Toolset {
  const single = cfg.url ? { name: DEFAULT_INSTANCE, url: cfg.url, headers: cfg.headers } : null;
  return fromInstances(cfg, 'toolsets.prometheus', single, createPrometheusToolset) ?? createPrometheusToolset(cfg);
}

/** Prometheus over its HTTP API. Disabled, with the reason, when no URL is set or Prometheus does not answer. */
export function createPrometheusToolset(cfg: PrometheusToolsetConfig): Toolset {
  const client = cfg.url ? new PrometheusClient(cfg.url, cfg.headers) : null;
  return {
    name: 'prometheus',
    description: 'Query metrics, alerts and rules from Prometheus',
    instructions: INSTRUCTIONS,
    origin: 'builtin',
    enabled: true,
    prerequisites: [
      {
        kind: 'check',
        run: async () => (client ? client.probe() : 'no Prometheus URL: set PROMETHEUS_URL or toolsets.prometheus.url'),
      },
    ],
    tools: readsOutside(prometheusTools(client)),
  };
}

/** A tool's run: GET path with the params picked, no_data when isEmpty says the answer holds nothing. */
type Call = (
  path: string,
  pick: (p: Record<string, unknown>) => Record<string, string | undefined>,
  isEmpty: (d: unknown) => boolean,
) => Tool['run'];

/** The tools, over the client the prerequisite check found answering (the toolset is off without one). */
function prometheusTools(client: PrometheusClient | null): Tool[] {
  const call: Call =
    (path, pick, isEmpty) =>
    async (params: Record<string, unknown>, ctx: { signal: AbortSignal }): Promise<ToolOutput> => {
      const data = await client!.get(path, pick(params), ctx.signal);
      return isEmpty(data) ? { status: 'no_data', data } : { status: 'success', data };
    };
  return [...queryTools(call), ...ruleTools(call), labelValuesTool(client), ...alertTools(client)];
}

/** PromQL, at an instant and over a range. */
function queryTools(call: Call): Tool[] {
  return [
    {
      name: 'prometheus_query',
      description: 'Run an instant PromQL query and return the current value of each series.',
      params: z.strictObject({ query: z.string().min(1).describe('PromQL expression'), time: time.optional() }),
      run: call('query', (p) => ({ query: p.query as string, time: p.time as string | undefined }), emptyResult),
    },
    {
      name: 'prometheus_query_range',
      description: 'Run a PromQL query over a time range and return the series sampled at each step.',
      params: z.strictObject({
        query: z.string().min(1).describe('PromQL expression'),
        start: time,
        end: time,
        step: z.string().default('60s').describe('resolution, e.g. 30s, 5m'),
      }),
      run: call(
        'query_range',
        (p) => ({ query: p.query as string, start: p.start as string, end: p.end as string, step: p.step as string }),
        emptyResult,
      ),
    },
  ];
}

/** The alerts being evaluated, and the alerting and recording rules. */
function ruleTools(call: Call): Tool[] {
  return [
    {
      name: 'prometheus_alerts',
      description: 'List the alerts Prometheus is currently evaluating as pending or firing.',
      params: z.strictObject({}),
      run: call(
        'alerts',
        () => ({}),
        (d) => ((d as { alerts?: unknown[] }).alerts ?? []).length === 0,
      ),
    },
    {
      name: 'prometheus_rules',
      description: 'List alerting and recording rules with their expressions and state.',
      params: z.strictObject({ type: z.enum(['alert', 'record']).optional() }),
      run: call(
        'rules',
        (p) => ({ type: p.type as string | undefined }),
        (d) => ((d as { groups?: unknown[] }).groups ?? []).length === 0,
      ),
    },
  ];
}

/** A label's values, optionally only on the series a selector matches. */
function labelValuesTool(client: PrometheusClient | null): Tool {
  return {
    name: 'prometheus_label_values',
    description: 'List the values a label takes, optionally only on series matching a selector.',
    params: z.strictObject({
      label: z
        .string()
        .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/)
        .describe('label name, e.g. job or __name__'),
      match: z.string().optional().describe('series selector, e.g. up{job="api"}'),
    }),
    run: async (params, ctx) => {
      const data = await client!.get(
        `label/${params.label as string}/values`,
        { 'match[]': params.match as string | undefined },
        ctx.signal,
      );
      return Array.isArray(data) && data.length === 0 ? { status: 'no_data', data } : { status: 'success', data };
    },
  };
}

function emptyResult(data: unknown): boolean {
  const result = (data as { result?: unknown }).result;
  return Array.isArray(result) && result.length === 0;
}
