import type { FeedbackEntry } from '../records/feedback.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';
import { recurrences } from '../store/firings.js';
import { resolvedAfterSeconds, recurredFlags } from './outcome.js';
import { FiguresTally, KeyedTallies, type QualityFigures, type QualityRow } from './quality-figures.js';
import { readRows, windowIds } from './window-rows.js';
import { consensus } from './verdicts.js';

/** What the quality figures read an investigation's feedback through (FeedbackStore). */
export interface FeedbackReader {
  list(id: string): Promise<FeedbackEntry[]>;
}

/** One UTC day of the window: how many answers, how many rated, and how right. */
export interface QualityDay {
  date: string;
  investigations: number;
  rated: number;
  /** rated / investigations; null on a day without answers. */
  ratedShare: number | null;
  accuracy: number | null;
}

export interface QualityReport {
  days: number;
  since: string;
  until: string;
  /** The currency costs are in (the configured price's); null when no cost was counted. */
  currency: string | null;
  overall: QualityFigures;
  bySource: Record<string, QualityFigures>;
  byAlert: Record<string, QualityFigures>;
  byModel: Record<string, QualityFigures>;
  perDay: QualityDay[];
}

/** How many investigations are read per round (records, then feedback, then recurrences: three round trips). */
export const QUALITY_BATCH = 500;

/**
 * The quality of the investigations created in the last `days` UTC days (today included) that gave an answer (status
 * completed), read from the time index in batches of QUALITY_BATCH: one HMGET of a dozen small fields
 * per record, its feedback hash, and a ZRANGEBYSCORE per resolved one, pipelined per batch.
 */
export async function qualityReport(
  redis: RedisClient,
  feedback: FeedbackReader,
  days: number,
  now = new Date(),
): Promise<QualityReport> {
  // Whole UTC days: today and the days - 1 before it.
  const sinceMs = Date.UTC(...utcDay(now.getTime())) - (days - 1) * 86_400_000;
  const overall = new FiguresTally();
  const [bySource, byAlert, byModel] = [new KeyedTallies(), new KeyedTallies(), new KeyedTallies()];
  const perDay = new Map<string, KeyedTallies>();
  let currency: string | null = null;
  for await (const ids of windowIds(keysOf(redis).index(), redis, sinceMs, now.getTime(), QUALITY_BATCH)) {
    for (const row of await answeredRows(redis, feedback, ids)) {
      overall.add(row);
      bySource.add(row.source, row);
      byAlert.add(row.alert, row);
      byModel.add(row.model, row);
      const day = row.createdAt.slice(0, 10);
      if (!perDay.has(day)) perDay.set(day, new KeyedTallies());
      perDay.get(day)!.add('all', row);
      currency ??= row.currency;
    }
  }
  return {
    days,
    since: new Date(sinceMs).toISOString(),
    until: now.toISOString(),
    currency,
    overall: overall.figures(),
    bySource: bySource.figures(),
    byAlert: byAlert.figures(),
    byModel: byModel.figures(),
    perDay: dayList(perDay, sinceMs, now.getTime()),
  };
}

/** The rows of one batch of ids: answered ones only, with their verdict and recurrence. */
async function answeredRows(redis: RedisClient, feedback: FeedbackReader, ids: string[]): Promise<QualityRow[]> {
  const records = (await readRows(redis, ids)).filter((r) => r.status === 'completed');
  const [entries, after] = await Promise.all([
    Promise.all(records.map((r) => feedback.list(r.id))),
    recurrences(
      redis,
      records
        .filter((r) => r.resolvedAt)
        .map((r) => ({
          id: r.id,
          source: r.source,
          fingerprints: r.fingerprints,
          resolvedAtMs: Date.parse(r.resolvedAt!),
        })),
    ),
  ]);
  let resolvedAt = 0;
  return records.map((r, i) => {
    const recurredWithin7d = r.resolvedAt ? recurredFlags(after[resolvedAt++]).recurredWithin7d : null;
    return {
      id: r.id,
      source: r.source,
      alert: r.alert,
      model: r.cost?.model ?? 'unknown',
      createdAt: r.createdAt,
      verdict: consensus(entries[i]!),
      cost: r.cost?.amount ?? null,
      currency: r.cost?.currency ?? null,
      resolvedAfterSeconds: resolvedAfterSeconds(r.status, r.finishedAt, r.resolvedAt),
      resolved: Boolean(r.resolvedAt),
      recurred: recurredWithin7d === true,
      reused: r.reused,
    };
  });
}

/** Every UTC day of the window, oldest first, days without answers included (the chart's x axis). */
function dayList(perDay: Map<string, KeyedTallies>, sinceMs: number, untilMs: number): QualityDay[] {
  const out: QualityDay[] = [];
  for (let t = Date.UTC(...utcDay(sinceMs)); t <= untilMs; t += 86_400_000) {
    const date = new Date(t).toISOString().slice(0, 10);
    const f = perDay.get(date)?.figures().all;
    out.push({
      date,
      investigations: f?.investigations ?? 0,
      rated: f?.rated ?? 0,
      ratedShare: f?.investigations ? Math.round((f.rated / f.investigations) * 10_000) / 10_000 : null,
      accuracy: f?.accuracy ?? null,
    });
  }
  return out;
}

function utcDay(ms: number): [number, number, number] {
  const d = new Date(ms);
  return [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()];
}
