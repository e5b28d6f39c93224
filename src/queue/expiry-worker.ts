import { Worker } from 'bullmq';
import type { RedisClient } from '../redis/redis-connections.js';
import type { Logger } from '../log.js';
import type { RunControl } from '../store/run-control.js';
import type { Continuations } from './continuations.js';
import { EXPIRY_QUEUE_NAME } from '../redis/queue-names.js';
import { type ExpiryJobData } from '../redis/job-data.js';
import { keysOf } from '../redis/keys.js';

/**
 * Ends pauses nobody decided in time. The delayed jobs live in their own queue, so the work queue's
 * waiting count stays "investigations waiting for a worker". An expiry that still applies (the same
 * pause, still waiting: checked atomically against decisions) queues the resume, in which the
 * undecided calls are answered "not approved in time".
 */
export function startExpiryWorker(
  redis: RedisClient,
  runs: RunControl,
  continuations: Continuations,
  log: Logger,
): Worker<ExpiryJobData> {
  const worker = new Worker<ExpiryJobData>(
    EXPIRY_QUEUE_NAME,
    async (job) => {
      const { investigationId: id, phase, seq } = job.data;
      if (await runs.expire(id, phase, seq)) {
        log.info({ id, phase, seq }, 'approvals expired; the investigation goes on without them');
      } else {
        // Expired by an earlier try of this job that died before queueing the resume? Then queue it
        // now (the resume's job id makes a second one a no-op); otherwise decisions came first.
        const pause = await runs.pauseState(id);
        if (pause?.seq !== seq || !pause.expired) return;
      }
      await continuations.resume(id, phase, seq);
    },
    { connection: redis, prefix: keysOf(redis).queuePrefix, concurrency: 4 },
  );
  worker.on('error', (err) => log.error({ err: err.message }, 'expiry worker error'));
  return worker;
}
