import type { Worker } from 'bullmq';
import type { Logger } from '../log.js';

/**
 * Closes a BullMQ worker, waiting at most graceMs. Worker.close() can wait forever on a
 * blocking connection caught reconnecting (bullmq#4656, open): shutdown must not. A worker left
 * behind holds no lock for long; its job is taken over by stalled-job recovery.
 */
export async function closeWorker(worker: Worker, log: Logger, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = await Promise.race([
    // A close that failed has ended too: the race only asks whether it ended within the grace period.
    worker.close().then(
      () => false,
      () => false,
    ),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), graceMs);
    }),
  ]);
  clearTimeout(timer);
  if (timedOut)
    log.warn(
      { worker: worker.name, graceMs },
      'worker did not close in time; leaving its jobs to stalled-job recovery',
    );
}
