/** What the benchmark reads from Redis' INFO: its CPU, its writes, and its AOF rewrites. */
import type { Redis } from 'ioredis';

/** CPU seconds Redis' own process has used (a rewrite's child is not included). */
export async function redisCpu(redis: Redis | null): Promise<number> {
  if (!redis) return 0;
  const info = await redis.info('cpu');
  return Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1]);
}

/** Changes to Redis' data set so far (it counts every write; no RDB saves run to reset it). */
export async function redisWrites(redis: Redis | null): Promise<number> {
  if (!redis) return 0;
  return Number(/rdb_changes_since_last_save:(\d+)/.exec(await redis.info('persistence'))?.[1] ?? 0);
}

/** AOF rewrites finished so far, and whether one is running (a forked child taking a core while it lasts). */
export async function aofRewrites(redis: Redis | null): Promise<{ done: number; running: boolean }> {
  if (!redis) return { done: 0, running: false };
  const info = await redis.info('persistence');
  return { done: Number(/aof_rewrites:(\d+)/.exec(info)?.[1] ?? 0), running: /aof_rewrite_in_progress:1/.test(info) };
}

/** Rewrites that ran during a case: those finished in it, plus one still running at its end. */
export function rewritesDuring(before: { done: number }, after: { done: number; running: boolean }): number {
  return after.done - before.done + (after.running ? 1 : 0);
}

/**
 * Rewrites the AOF now and waits for it: each case then starts from a compact file, so whether
 * Redis' own rewrite (due each time the file doubles) falls inside it depends on the case, not on
 * what the cases before it wrote. The cases still count any rewrite that ran during them.
 */
export async function compactAof(redis: Redis): Promise<void> {
  const busy = async () => /aof_rewrite_in_progress:1|aof_rewrite_scheduled:1/.test(await redis.info('persistence'));
  while (await busy()) await new Promise((r) => setTimeout(r, 50));
  await redis.bgrewriteaof();
  while (await busy()) await new Promise((r) => setTimeout(r, 50));
}
