import type { Config } from '../src/config/schema.js';
import type { MountedSource } from '../src/app/mount-sources.js';
import { redactUrl } from '../src/redact.js';
import type { ToolsetStatus } from '../src/tools/types.js';

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
  apiTokens: number;
  /** Each destination's state: `off: why`, `checking`, ... */
  destinations: ReadonlyMap<string, string>;
}

const pad = (label: string) => `  ${label.padEnd(22)} `;

/** The one block `serve` (or, shorter, `worker`) prints when it is up: what runs, what is off and why, what is open. */
export function startupSummary(s: SummaryInput): string {
  const lines = [`lestrade ${s.mode} started`];
  if (s.port !== null) lines.push(`${pad('listening')}${listeningLine(s, s.port)}`);
  lines.push(`${pad('redis')}${redisLine(s)}`);
  lines.push(`${pad('llm')}${llmLine(s)}`);
  for (const m of s.mounted) lines.push(`${pad(`source ${m.name}`)}${sourceLine(m)}`);
  if (s.toolsets) for (const t of s.toolsets) lines.push(`${pad(`toolset ${t.name}`)}${toolsetLine(t)}`);
  else lines.push(`${pad('toolsets')}not loaded: no LLM configured`);
  for (const [name, state] of s.destinations) lines.push(`${pad(`destination ${name}`)}${state}`);
  for (const m of s.mounted) for (const w of m.warnings) lines.push(`${pad('warning')}${m.name}: ${w}`);
  if (s.mode === 'serve') lines.push(...openLines(s));
  return lines.join('\n');
}

function listeningLine(s: SummaryInput, port: number): string {
  const at = `http://${s.config.server.host}:${port}`;
  if (s.mode === 'serve') return `${at} (PORT, HOST)`;
  return `${at} /healthz, /readyz and /metrics only (LESTRADE_WORKER_PORT, HOST)`;
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
function openLines(s: SummaryInput): string[] {
  const lines: string[] = [];
  if (s.apiTokens === 0) lines.push(`${pad('open')}/api has no auth: set LESTRADE_API_TOKEN`);
  for (const m of s.mounted) for (const w of m.webhookWarnings) lines.push(`${pad('open')}${m.name}: ${w}`);
  return lines;
}
