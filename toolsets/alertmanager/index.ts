import { z } from 'zod';
import type { Prerequisite, Tool, ToolOutput, Toolset } from '../../src/tools/types.js';
import { AlertmanagerClient, type Query } from './alertmanager-client.js';
import { compactAlert, compactSilence } from './compact.js';
import { createSilenceTool } from './create-silence.js';
import { matchersParam, parseMatchers } from './matchers.js';
import { readsOutside } from '../../src/tools/reads-outside.js';
import { fromInstances } from '../../src/tools/instanced-toolset.js';
import { DEFAULT_INSTANCE } from '../../src/tools/pick-instance.js';
import type { AlertmanagerSettings } from './config.js';

export interface AlertmanagerToolsetConfig {
  enabled?: boolean;
  url?: string;
  headers?: Record<string, string>;
  /** The longest silence alertmanager_create_silence may create. */
  maxSilenceHours: number;
}

const INSTRUCTIONS = [
  "List alerts with matchers from the issue's labels (namespace, service, cluster) to see what else fires now:",
  'many alerts starting together point to a shared cause. Check silences before calling an alert new or ignored,',
  'and alert groups to see what Alertmanager sent together. Propose a silence (alertmanager_create_silence, which',
  'waits for a human) only once the cause is understood and the alert is noise until a fix lands: narrow',
  'matchers, the shortest useful duration, and a comment saying why.',
].join('\n');

/** Alertmanager as configured: one (`url`), or several by name (`instances`), one set of tools either way. */
export function createAlertmanagerToolsets(cfg: AlertmanagerSettings): Toolset {
  const single = cfg.url ? { name: DEFAULT_INSTANCE, url: cfg.url, headers: cfg.headers } : null;
  const build = (i: { url: string; headers: Record<string, string> }) =>
    createAlertmanagerToolset({ ...i, enabled: cfg.enabled, maxSilenceHours: cfg.maxSilenceHours });
  return fromInstances(cfg, 'toolsets.alertmanager', single, build) ?? createAlertmanagerToolset(cfg);
}

/** Alertmanager's API v2: alerts, groups and silences, and creating a silence with a human's approval. */
export function createAlertmanagerToolset(cfg: AlertmanagerToolsetConfig): Toolset {
  const client = cfg.url ? new AlertmanagerClient(cfg.url, cfg.headers) : null;
  const prerequisite: Prerequisite = cfg.url
    ? { kind: 'http', url: AlertmanagerClient.readyUrl(cfg.url), headers: cfg.headers ?? {} }
    : {
        kind: 'check',
        run: () => Promise.resolve('no Alertmanager URL: set ALERTMANAGER_URL or toolsets.alertmanager.url'),
      };
  return {
    name: 'alertmanager',
    description: 'Alerts, alert groups and silences in Alertmanager; silences created with approval',
    instructions: INSTRUCTIONS,
    origin: 'builtin',
    enabled: cfg.enabled ?? true,
    prerequisites: [prerequisite],
    // Creating a silence answers with what the model asked for: it vouches for no link.
    tools: [
      ...readsOutside([alertsTool(client), groupsTool(client), silencesTool(client)]),
      createSilenceTool(client, cfg.maxSilenceHours),
    ],
  };
}

const flag = (what: string) => z.boolean().default(true).describe(`include ${what} alerts (default true)`);
const limit = (max: number, def: number) => z.int().min(1).max(max).default(def);

/** The filter Alertmanager takes: matchers checked here first, so a bad one is named before anything is sent. */
function alertQuery(p: Record<string, unknown>): Query | { error: string } {
  const matchers = (p.matchers as string[] | undefined) ?? [];
  const parsed = parseMatchers(matchers);
  if ('error' in parsed) return parsed;
  return {
    filter: matchers,
    active: String(p.active),
    silenced: String(p.silenced),
    inhibited: String(p.inhibited),
  };
}

type AmAlert = Parameters<typeof compactAlert>[0];

function alertsTool(client: AlertmanagerClient | null): Tool {
  return {
    name: 'alertmanager_alerts',
    description:
      'List the alerts Alertmanager holds now (newest first), with matchers on their labels: labels, summary, ' +
      'state (active, suppressed), what silences or inhibits them, when they started and their generatorURL.',
    params: z.strictObject({
      matchers: matchersParam.optional(),
      active: flag('active'),
      silenced: flag('silenced'),
      inhibited: flag('inhibited'),
      limit: limit(500, 50),
    }),
    async run(p, ctx): Promise<ToolOutput> {
      const query = alertQuery(p);
      if ('error' in query) return { status: 'error', error: query.error as string };
      const alerts = (await client!.get('alerts', query, ctx.signal)) as AmAlert[];
      const sorted = [...alerts].sort((a, b) => (b.startsAt ?? '').localeCompare(a.startsAt ?? ''));
      const shown = sorted.slice(0, p.limit as number).map(compactAlert);
      const data = { total: alerts.length, shown: shown.length, alerts: shown };
      return alerts.length === 0 ? { status: 'no_data', data } : { status: 'success', data };
    },
  };
}

function groupsTool(client: AlertmanagerClient | null): Tool {
  return {
    name: 'alertmanager_alert_groups',
    description:
      "List the alert groups Alertmanager notifies as one (by its route's group_by labels), with matchers: each " +
      "group's labels, receiver, alert count and its first alerts.",
    params: z.strictObject({
      matchers: matchersParam.optional(),
      active: flag('active'),
      silenced: flag('silenced'),
      inhibited: flag('inhibited'),
      limit: limit(200, 20).describe('groups to show (default 20)'),
      alertsPerGroup: limit(100, 10).describe('alerts to show of each group (default 10)'),
    }),
    async run(p, ctx): Promise<ToolOutput> {
      const query = alertQuery(p);
      if ('error' in query) return { status: 'error', error: query.error as string };
      const groups = (await client!.get('alerts/groups', query, ctx.signal)) as Array<{
        labels?: Record<string, string>;
        receiver?: { name?: string };
        alerts?: AmAlert[];
      }>;
      const shown = groups.slice(0, p.limit as number).map((g) => ({
        labels: g.labels ?? {},
        receiver: g.receiver?.name,
        alertCount: g.alerts?.length ?? 0,
        alerts: (g.alerts ?? []).slice(0, p.alertsPerGroup as number).map(compactAlert),
      }));
      const data = { total: groups.length, shown: shown.length, groups: shown };
      return groups.length === 0 ? { status: 'no_data', data } : { status: 'success', data };
    },
  };
}

function silencesTool(client: AlertmanagerClient | null): Tool {
  return {
    name: 'alertmanager_silences',
    description:
      'List silences (active and pending unless state says otherwise), optionally only those matching matchers: ' +
      'id, state, matchers, start, end, who created it and why.',
    params: z.strictObject({
      matchers: matchersParam.optional(),
      state: z.enum(['active', 'pending', 'expired', 'all']).optional().describe('default: active and pending'),
      limit: limit(500, 50),
    }),
    async run(p, ctx): Promise<ToolOutput> {
      const matchers = (p.matchers as string[] | undefined) ?? [];
      const parsed = parseMatchers(matchers);
      if ('error' in parsed) return { status: 'error', error: parsed.error };
      const all = (await client!.get('silences', { filter: matchers }, ctx.signal)) as Array<
        Parameters<typeof compactSilence>[0]
      >;
      const wanted = (state: string) => (p.state ? p.state === 'all' || p.state === state : state !== 'expired');
      const silences = all
        .map(compactSilence)
        .filter((s) => wanted(s.state))
        .sort((a, b) => (b.startsAt ?? '').localeCompare(a.startsAt ?? ''));
      const shown = silences.slice(0, p.limit as number);
      const data = { total: silences.length, shown: shown.length, silences: shown };
      return silences.length === 0 ? { status: 'no_data', data } : { status: 'success', data };
    },
  };
}
