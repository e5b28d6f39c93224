import { z } from 'zod';
import type { Tool, ToolOutput, Toolset } from '../../src/tools/types.js';
import { formatQueryData, type QueryData } from './format-streams.js';
import { LokiClient, type LokiClientConfig } from './loki-client.js';
import { durationParam, queryWindow, timeParam } from './loki-time.js';
import { readsOutside } from '../../src/tools/reads-outside.js';
import { fromInstances } from '../../src/tools/instanced-toolset.js';
import { DEFAULT_INSTANCE } from '../../src/tools/pick-instance.js';
import type { LokiSettings } from './config.js';

export type LokiToolsetConfig = Partial<LokiClientConfig>;

/** Lines a query returns unless the model asks for fewer or more; and the most it may ask for. */
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;

const windowParams = {
  start: timeParam.optional(),
  end: timeParam.optional(),
  since: durationParam.optional().describe('how far back from end (or forward from start); default 1h'),
};

const INSTRUCTIONS = [
  "Look at the logs around the issue's start: pass start about 30 minutes before it and end shortly after (or",
  'since), never the default window for an issue that started earlier. Find the stream labels first (loki_labels,',
  'loki_label_values for namespace, app, pod...) rather than guessing a selector, then narrow with line filters',
  '(|= "error", |~ "timeout|refused"). Quote the log lines you rely on, with their time.',
].join('\n');

/** Loki as configured: one server (`url`), or several by name (`instances`), one set of tools either way. */
export function createLokiToolsets(cfg: LokiSettings): Toolset {
  const { instances: _i, instanceLabel: _l, crossInstance: _c, ...server } = cfg;
  const single = server.url ? { ...server, name: DEFAULT_INSTANCE, url: server.url } : null;
  return fromInstances(cfg, 'toolsets.loki', single, createLokiToolset) ?? createLokiToolset(server);
}

/** Loki over its HTTP API. Disabled, with the reason, when no URL is set or Loki does not answer. */
export function createLokiToolset(cfg: LokiToolsetConfig): Toolset {
  const client = cfg.url ? new LokiClient({ ...cfg, url: cfg.url }) : null;
  return {
    name: 'loki',
    description: 'Query logs from Grafana Loki with LogQL, and the labels its streams carry',
    instructions: INSTRUCTIONS,
    origin: 'builtin',
    enabled: true,
    prerequisites: [
      {
        kind: 'check',
        run: async () => (client ? client.probe() : 'no Loki URL: set LOKI_URL or toolsets.loki.url'),
      },
    ],
    tools: readsOutside(lokiTools(client)),
  };
}

function lokiTools(client: LokiClient | null): Tool[] {
  const loki = (): LokiClient => {
    if (!client) throw new Error('no Loki URL: set LOKI_URL or toolsets.loki.url');
    return client;
  };
  return [queryRangeTool(loki), labelsTool(loki), labelValuesTool(loki)];
}

function queryRangeTool(loki: () => LokiClient): Tool {
  return {
    name: 'loki_query_range',
    description:
      'Run a LogQL query over a time window (default: the hour before end, end defaulting to now) and return ' +
      "the matching log lines, newest first, each stream's labels once. Metric queries (rate, count_over_time) " +
      'return their series.',
    params: z.strictObject({
      query: z.string().min(1).describe('LogQL, e.g. {namespace="prod", app="api"} |= "error"'),
      ...windowParams,
      limit: z
        .int()
        .min(1)
        .max(MAX_LIMIT)
        .default(DEFAULT_LIMIT)
        .describe(`most log lines to return (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`),
      step: durationParam.optional().describe('resolution of a metric query, e.g. 1m'),
    }),
    run: async (p, ctx): Promise<ToolOutput> => {
      const limit = p.limit as number;
      const { start, end } = queryWindow(p);
      const data = (await loki().get(
        'query_range',
        { query: p.query as string, start, end, limit: String(limit), direction: 'backward', step: p.step as string },
        ctx.signal,
      )) as QueryData;
      const { text, empty } = formatQueryData(data, limit);
      return empty
        ? { status: 'no_data', message: 'no log lines matched in the window' }
        : { status: 'success', data: text };
    },
  };
}

function labelsTool(loki: () => LokiClient): Tool {
  return {
    name: 'loki_labels',
    description: 'List the label names of log streams in a window (default the last hour), optionally of a selector.',
    params: z.strictObject({
      query: z.string().min(1).optional().describe('stream selector, e.g. {namespace="prod"}'),
      ...windowParams,
    }),
    run: async (p, ctx) => listOutput(await loki().get('labels', listParams(p), ctx.signal)),
  };
}

function labelValuesTool(loki: () => LokiClient): Tool {
  return {
    name: 'loki_label_values',
    description: 'List the values a label takes on log streams in a window (default the last hour).',
    params: z.strictObject({
      label: z
        .string()
        .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/)
        .describe('label name, e.g. app or namespace'),
      query: z.string().min(1).optional().describe('stream selector, e.g. {namespace="prod"}'),
      ...windowParams,
    }),
    run: async (p, ctx) => listOutput(await loki().get(`label/${p.label as string}/values`, listParams(p), ctx.signal)),
  };
}

function listParams(p: Record<string, unknown>): Record<string, string | undefined> {
  const { start, end } = queryWindow(p);
  return { start, end, query: p.query as string | undefined };
}

function listOutput(data: unknown): ToolOutput {
  const names = Array.isArray(data) ? (data as string[]) : [];
  return names.length === 0 ? { status: 'no_data', data: [] } : { status: 'success', data: names.join('\n') };
}
