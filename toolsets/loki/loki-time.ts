import { z } from 'zod';

/** How far back a query looks when neither start nor since is given. */
export const DEFAULT_WINDOW = '1h';

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export const timeParam = z
  .string()
  .min(1)
  .describe("RFC 3339 timestamp (2026-01-02T15:04:05Z) or Unix seconds; use the issue's start time to look around it");
export const durationParam = z
  .string()
  .regex(/^\d+[smhd]$/, 'a duration such as 30m, 2h or 1d')
  .describe('a duration such as 30m, 2h or 1d');

export interface Window {
  /** Nanoseconds since the epoch, as Loki takes them. */
  start: string;
  end: string;
}

/** A time the model wrote, in milliseconds; throws naming the parameter when it is neither form. */
export function parseTime(name: string, value: string): number {
  const ms = /^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value);
  if (!/^\d/.test(value) || !Number.isFinite(ms)) {
    throw new Error(`${name}: "${value}" is neither an RFC 3339 timestamp nor Unix seconds`);
  }
  return ms;
}

export function durationMs(value: string): number {
  const m = /^(\d+)([smhd])$/.exec(value);
  if (!m) throw new Error(`"${value}" is not a duration such as 30m, 2h or 1d`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

/**
 * The window of a query: [start, end]. end defaults to now, or to start + since when start is
 * given; start defaults to end - since; since defaults to an hour.
 */
export function queryWindow(p: { start?: string; end?: string; since?: string }, now: number = Date.now()): Window {
  const span = durationMs(p.since ?? DEFAULT_WINDOW);
  const start = p.start === undefined ? undefined : parseTime('start', p.start);
  let end = p.end === undefined ? undefined : parseTime('end', p.end);
  end ??= start === undefined ? now : start + span;
  const from = start ?? end - span;
  if (end <= from) throw new Error('end must be after start');
  return { start: toNs(from), end: toNs(end) };
}

function toNs(ms: number): string {
  return (BigInt(Math.round(ms)) * 1_000_000n).toString();
}
