import type { Config } from '../config/schema.js';
import type { MountedSource } from './mount-sources.js';
import { redactUrl } from '../redact.js';
import { isLoopback } from '../config/server-access.js';
import type { ToolsetStatus } from '../tools/types.js';

export interface SummaryInput {
  mode: 'serve' | 'worker';
  config: Config;
  redisUrl: string;
  localRedis: boolean;
  llmConfigured: boolean;
  /** The port listened on: serve's, or the worker's own (/healthz, /readyz, /metrics); null when none. */
  port: number | null;
  mounted: readonly MountedSource[];
  /** Null when no investigation worker runs (no LLM). */
  toolsets: readonly ToolsetStatus[] | null;
  /** The address listened on (src/config/server-access.ts: HOST, else by whether a token is set). */
  host: string;
  apiTokens: number;
  /** Each destination's state: `off: why`, `checking`, ... */
  destinations: ReadonlyMap<string, string>;
}

const pad = (label: string) => `  ${label.padEnd(22)} `;

/** One line of the summary: its topic ("redis", "source"), what it says, and whose it is (a source's name). */
type Entry = [topic: string, text: string, name?: string];

/** Named topics gather in one object each (`sources.github`), repeated ones in a list, in the JSON form. */
const GROUPS: Record<string, string> = { source: 'sources', toolset: 'toolsets', destination: 'destinations' };
const LISTS: Record<string, string> = { warning: 'warnings', open: 'open' };

/** What runs, what is off and why, what is open: each line of the summary, in order. */
function entries(s: SummaryInput): Entry[] {
  const out: Entry[] = [];
  if (s.port !== null) out.push(['listening', listeningLine(s, s.port)]);
  out.push(['redis', redisLine(s)]);
  out.push(['llm', llmLine(s)]);
  for (const m of s.mounted) out.push(['source', sourceLine(m), m.name]);
  if (s.toolsets) for (const t of s.toolsets) out.push(['toolset', toolsetLine(t), t.name]);
  else out.push(['toolsets', 'not loaded: no LLM configured']);
  for (const [name, state] of s.destinations) out.push(['destination', state, name]);
  for (const m of s.mounted) for (const w of m.warnings) out.push(['warning', `${m.name}: ${w}`]);
  if (s.mode === 'serve') out.push(...openLines(s));
  return out;
}

/** The one block `serve` (or, shorter, `worker`) prints when it is up, for a terminal: one aligned line each. */
export function startupSummary(s: SummaryInput): string {
  const lines = entries(s).map(
    ([topic, text, name]) => `${pad(name === undefined ? topic : `${topic} ${name}`)}${text}`,
  );
  return [startupMessage(s), ...lines].join('\n');
}

/** The summary's first line; in JSON logs, the whole message (the rest are fields). */
export function startupMessage(s: SummaryInput): string {
  return `lestrade ${s.mode} started`;
}

/**
 * The same summary as fields of one JSON log record, for machines: `listening`, `redis`, `llm`,
 * `sources`/`toolsets`/`destinations` by name, `warnings` and `open` as lists; no embedded newline.
 */
export function startupFields(s: SummaryInput): Record<string, unknown> {
  const fields: Record<string, unknown> = { mode: s.mode, port: s.port };
  for (const [topic, text, name] of entries(s)) {
    const group = GROUPS[topic];
    const list = LISTS[topic];
    if (name !== undefined && group) fields[group] = { ...(fields[group] as object | undefined), [name]: text };
    else if (list) fields[list] = [...((fields[list] as string[] | undefined) ?? []), text];
    else fields[topic] = text;
  }
  return fields;
}

function listeningLine(s: SummaryInput, port: number): string {
  const at = `http://${s.host.includes(':') ? `[${s.host}]` : s.host}:${port}`;
  const what =
    s.mode === 'serve'
      ? `${at} (PORT, HOST)`
      : `${at} /healthz, /readyz and /metrics only (LESTRADE_WORKER_PORT, HOST)`;
  return isLoopback(s.host) ? `${what}, ${loopbackNote(s)}` : what;
}

/** Why only this machine reaches it, and the variables that open it. */
function loopbackNote(s: SummaryInput): string {
  if (s.config.server.host !== undefined) return 'this machine only (HOST)';
  // The worker serves nothing that changes state: HOST alone moves it.
  if (s.mode === 'worker') return 'this machine only: set HOST=0.0.0.0 for probes and scrapes from elsewhere';
  return (
    'this machine only: no API token is set. To open it to other hosts set HOST=0.0.0.0 and ' +
    'LESTRADE_API_TOKENS=<name>:<token> (or LESTRADE_API_TOKEN)'
  );
}

function redisLine(s: SummaryInput): string {
  const url = redactUrl(s.redisUrl);
  if (s.localRedis) return `${url}, started locally (data in ${s.config.redis.dataDir}; set REDIS_URL to use another)`;
  return `${url}, external (REDIS_URL)`;
}

function llmLine(s: SummaryInput): string {
  if (!s.llmConfigured) {
    return (
      'not configured: issues are accepted and queued, none is investigated until OPENAI_API_KEY ' +
      'or OPENAI_BASE_URL is set and Lestrade restarted'
    );
  }
  const base = s.config.llm.baseUrl
    ? redactUrl(s.config.llm.baseUrl)
    : 'https://api.openai.com/v1 (OPENAI_BASE_URL unset)';
  return `model ${s.config.llm.model} (LESTRADE_MODEL) at ${base}, ${s.config.queue.concurrency} at a time`;
}

function sourceLine(m: MountedSource): string {
  if (m.offReason) return `off: ${m.offReason}`;
  const parts = [m.webhook ? `webhook /webhooks/${m.name}` : 'no webhook', m.writer ? 'writes back' : 'no write-back'];
  if (m.pollers.length) parts.push(`${m.pollers.length} poller${m.pollers.length === 1 ? '' : 's'}`);
  return `on: ${parts.join(', ')}`;
}

function toolsetLine(t: ToolsetStatus): string {
  if (t.state === 'enabled') return `enabled: ${t.tools.length} tools`;
  return `${t.state}: ${t.reason ?? 'no reason given'}`;
}

/** What anyone who reaches the port can use without a credential (webhook warnings: only where webhooks are served). */
function openLines(s: SummaryInput): Entry[] {
  const lines: Entry[] = [];
  if (s.apiTokens === 0) lines.push(['open', openApiLine(s)]);
  for (const m of s.mounted) for (const w of m.webhookWarnings) lines.push(['open', `${m.name}: ${w}`]);
  return lines;
}

function openApiLine(s: SummaryInput): string {
  const fix = 'set LESTRADE_API_TOKENS=<name>:<token> (or LESTRADE_API_TOKEN)';
  if (isLoopback(s.host)) return `/api and the dashboard have no auth, reachable from this machine only: ${fix}`;
  return `/api and the dashboard have no auth and anyone who reaches HOST=${s.host} can use them (LESTRADE_ALLOW_UNAUTHENTICATED): ${fix}`;
}
