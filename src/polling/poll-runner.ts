import { Worker, type Queue } from 'bullmq';
import { POLL_QUEUE_NAME } from '../redis/queue-names.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { Logger } from '../log.js';
import { closeWorker } from '../queue/close-worker.js';
import type { Intake } from '../queue/intake-queue.js';
import type { Poller } from '../registration/source.js';
import { keysOf } from '../redis/keys.js';
import { openQueue } from '../redis/open-queue.js';
import { withLock } from '../redis/with-lock.js';

interface PollJobData {
  pollerId: string;
}

/**
 * One poll: read the cursor, ask the source for what changed since, hand it to intake (which
 * deduplicates by identity, so webhooks and polling never double up), then move the cursor.
 * The cursor moves only after intake succeeded, so a crash re-polls rather than misses.
 */
export async function runPoll(
  poller: Poller,
  redis: RedisClient,
  intake: Intake,
  log: Logger,
): Promise<{ queued: number; seen: number } | null> {
  const lockKey = `${keysOf(redis).pollCursor(poller.id)}:lock`;
  // A lock not released expires (its time below) and only delays the next poll.
  return withLock(
    redis,
    lockKey,
    Math.max(60_000, poller.everyMs * 2),
    () => pollOnce(poller, redis, intake, log),
    () => null,
  );
}

/** The poll itself, under runPoll's lock. */
async function pollOnce(
  poller: Poller,
  redis: RedisClient,
  intake: Intake,
  log: Logger,
): Promise<{ queued: number; seen: number }> {
  const cursor = await redis.get(keysOf(redis).pollCursor(poller.id));
  const result = await poller.poll(cursor);
  const outcome = await intake.accept(result.issues);
  await redis.set(keysOf(redis).pollCursor(poller.id), result.cursor);
  log.info(
    { poller: poller.id, seen: result.issues.length, queued: outcome.queued.length, cursor: result.cursor },
    'poll done',
  );
  return { queued: outcome.queued.length, seen: result.issues.length };
}

/**
 * Schedules every poller with a BullMQ job scheduler (one schedule however many processes
 * upsert it) and runs their jobs. Returns a closer.
 */
export async function startPolling(
  pollers: Poller[],
  redis: RedisClient,
  workerRedis: RedisClient,
  intake: Intake,
  log: Logger,
): Promise<() => Promise<void>> {
  if (pollers.length === 0) {
    await dropStaleSchedulers(redis, new Set());
    return async () => undefined;
  }
  const byId = new Map(pollers.map((p) => [p.id, p]));
  const queue = openQueue<PollJobData>(redis, POLL_QUEUE_NAME);
  await dropStaleSchedulers(redis, new Set(pollers.map((p) => schedulerId(p.id))), queue);
  for (const p of pollers) {
    await queue.upsertJobScheduler(
      schedulerId(p.id),
      { every: p.everyMs },
      {
        name: 'poll',
        data: { pollerId: p.id },
        opts: { removeOnComplete: 100, removeOnFail: 100 },
      },
    );
  }
  const worker = new Worker<PollJobData>(
    POLL_QUEUE_NAME,
    async (job) => {
      const poller = byId.get(job.data.pollerId);
      if (!poller) return;
      try {
        await runPoll(poller, redis, intake, log);
      } catch (err) {
        log.warn(
          { poller: poller.id, err: (err as Error).message },
          'poll failed; the next one retries from the same cursor',
        );
      }
    },
    { connection: workerRedis, prefix: keysOf(redis).queuePrefix, concurrency: 1 },
  );
  worker.on('error', (err) => log.error({ err: err.message }, 'poll worker error'));
  log.info({ pollers: pollers.map((p) => ({ id: p.id, everyMs: p.everyMs })) }, 'polling started');
  return async () => {
    await closeWorker(worker, log, 5_000);
    await queue.close();
  };
}

/** Schedules of pollers no longer configured would otherwise run (as no-ops) forever. */
async function dropStaleSchedulers(
  redis: RedisClient,
  wanted: Set<string>,
  existing?: Queue<PollJobData>,
): Promise<void> {
  const queue = existing ?? openQueue<PollJobData>(redis, POLL_QUEUE_NAME);
  try {
    for (const s of await queue.getJobSchedulers()) {
      if (s.key && !wanted.has(s.key)) await queue.removeJobScheduler(s.key);
    }
  } finally {
    if (!existing) await queue.close();
  }
}

/** Scheduler ids are BullMQ job-id material: no ':' allowed. */
function schedulerId(pollerId: string): string {
  return `poll-${Buffer.from(pollerId).toString('base64url')}`;
}
