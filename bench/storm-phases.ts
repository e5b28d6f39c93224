/**
 * Where a storm's time goes (BENCH_TRACE=1): per investigation, from the records in Redis and the
 * scripted model's own request log, the time in each phase, as median / 95th percentile / max (ms).
 */
import type { Redis } from 'ioredis';

export interface TraceEvent {
  t: number;
  /** The alert's name (Bench<i>) the request was about. */
  who: string;
  messages: number;
  kind: 'req' | 'ans';
}

const PHASES = [
  'posted → record created',
  'created → job active',
  'active → 1st request',
  '1st request → answered',
  '1st answer → 2nd request',
  '2nd request → answered',
  '2nd answer → RCA stored',
  'posted → RCA stored',
] as const;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
}

/** One investigation's phase durations (ms), from its record times and its model requests. */
function durations(postedAt: number, rec: Record<string, string>, ev: TraceEvent[]): number[] {
  const at = (k: string) => Date.parse(rec[k] ?? '');
  const [r1, a1, r2, a2] = ['req', 'ans'].flatMap((_, round) => [
    ev.filter((e) => e.kind === 'req')[round]?.t ?? NaN,
    ev.filter((e) => e.kind === 'ans')[round]?.t ?? NaN,
  ]) as [number, number, number, number];
  const [created, active, stored] = [at('createdAt'), at('startedAt'), at('finishedAt')];
  return [created - postedAt, active - created, r1 - active, a1 - r1, r2 - a1, a2 - r2, stored - a2, stored - postedAt];
}

/** The table of phases for one storm (text, for stderr). */
export async function stormPhases(redis: Redis, postedAt: number, trace: TraceEvent[]): Promise<string> {
  const ids = await redis.zrange('{lestrade}:invs', 0, -1);
  const byWho = new Map<string, TraceEvent[]>();
  for (const e of trace) byWho.set(e.who, [...(byWho.get(e.who) ?? []), e]);
  const rows: number[][] = [];
  for (const id of ids) {
    const rec = await redis.hgetall(`{lestrade}:inv:${id}`);
    const who = /Bench\d+/.exec(rec.issue ?? '')?.[0] ?? '';
    rows.push(durations(postedAt, rec, byWho.get(who) ?? []));
  }
  const lines = PHASES.map((name, i) => {
    const xs = rows.map((r) => r[i]!).filter((x) => Number.isFinite(x));
    return `${name.padEnd(28)} ${[0.5, 0.95, 1].map((p) => String(Math.round(pct(xs, p))).padStart(7)).join('')}`;
  });
  const t0 = trace.length ? Math.min(...trace.map((e) => e.t)) : postedAt;
  const perSecond = new Map<number, number>();
  for (const e of trace.filter((x) => x.kind === 'req')) {
    const s = Math.floor((e.t - t0) / 1000);
    perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
  }
  const timeline = [...perSecond].map(([s, n]) => `${s}s:${n}`).join(' ');
  return [
    `${'phase (ms)'.padEnd(28)}  median    p95    max`,
    ...lines,
    `requests per second from the first: ${timeline}`,
  ].join('\n');
}

/** Redis commands per investigation since CONFIG RESETSTAT, the most frequent first (text, for stderr). */
export async function commandStats(redis: Redis, investigations: number): Promise<string> {
  const info = await redis.info('commandstats');
  const rows = [...info.matchAll(/cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/g)].map((m) => ({
    cmd: m[1]!,
    calls: Number(m[2]),
    usec: Number(m[3]),
  }));
  rows.sort((a, b) => b.calls - a.calls);
  const total = rows.reduce((n, r) => n + r.calls, 0);
  const perInvestigation = (r: { calls: number; usec: number }) =>
    `${(r.calls / investigations).toFixed(1).padStart(7)}  ${(r.usec / investigations / 1000).toFixed(2)} ms`;
  const lines = rows.slice(0, 15).map((r) => `${r.cmd.padEnd(20)} ${perInvestigation(r)}`);
  return [`Redis commands per investigation: ${(total / investigations).toFixed(1)}`, ...lines].join('\n');
}
