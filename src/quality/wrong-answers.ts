import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';
import type { FeedbackReader } from './quality-report.js';
import { QUALITY_BATCH } from './quality-report.js';
import { consensus, statedRootCause } from './verdicts.js';
import { readRows, windowIds } from './window-rows.js';

/** An investigation people judged wrong: with the root cause they stated, or null when none did. */
export interface WrongAnswer {
  id: string;
  createdAt: string;
  rootCause: string | null;
}

/**
 * The answered investigations of the last `days` UTC days whose verdict (the consensus, verdicts.ts)
 * is wrong, oldest first, in the same batches as the quality figures.
 */
export async function wrongAnswers(
  redis: RedisClient,
  feedback: FeedbackReader,
  days: number,
  now = new Date(),
): Promise<WrongAnswer[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const out: WrongAnswer[] = [];
  const index = keysOf(redis).index();
  for await (const ids of windowIds(index, redis, today - (days - 1) * 86_400_000, now.getTime(), QUALITY_BATCH)) {
    const rows = (await readRows(redis, ids)).filter((r) => r.status === 'completed');
    const entries = await Promise.all(rows.map((r) => feedback.list(r.id)));
    rows.forEach((r, i) => {
      if (consensus(entries[i]!) === 'wrong')
        out.push({ id: r.id, createdAt: r.createdAt, rootCause: statedRootCause(entries[i]!) });
    });
  }
  return out;
}
