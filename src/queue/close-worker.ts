import type { Worker } from 'bullmq';
import type { Logger } from '../log.js';

/** Whether `closing` ended within ms. */
async function within(closing: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const ended = await Promise.race([
    closing.then(() => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  return ended;
}

/** How long a close first waits for a worker that is still connecting to finish connecting. */
export const READY_WAIT_MS = 2_000;

/**
 * worker.close(), settled either way. A worker closed while its connection still starts (a service
 * stopped just after it started) leaves BullMQ's own start-up promises rejected with "Connection is
 * closed" and nobody listening: an unhandled rejection. So it is first given a moment to be ready.
 */
async function closed(worker: Worker): Promise<void> {
  await within(
    // A worker that cannot connect is closed all the same: its failure to connect changes nothing here.
    worker.waitUntilReady().catch(() => undefined),
    READY_WAIT_MS,
  );
  // A close that failed has ended too: the callers only ask whether it ended within their time.
  await worker.close().then(
    () => undefined,
    () => undefined,
  );
}

/**
 * Closes a BullMQ worker, waiting at most graceMs. Worker.close() can wait forever on a
 * blocking connection caught reconnecting (bullmq#4656, open): shutdown must not. A worker left
 * behind holds no lock for long; its job is taken over by stalled-job recovery.
 */
export async function closeWorker(worker: Worker, log: Logger, graceMs: number): Promise<void> {
  if (!(await within(closed(worker), graceMs)))
    log.warn(
      { worker: worker.name, graceMs },
      'worker did not close in time; leaving its jobs to stalled-job recovery',
    );
}

/** The runs a worker has in progress, and the way to stop them so their jobs go back to the queue. */
export interface RunsInProgress {
  readonly inProgress: number;
  interruptAll(): number;
}

/**
 * Shutdown of the investigation worker: it takes no new job, the runs in progress get timeoutMs to
 * finish (the log says how many it waits for), then they are interrupted and hand their jobs back
 * (job-run.ts), to be resumed from their checkpoints by another worker; handBackMs later the worker
 * is left to stalled-job recovery like any other (closeWorker).
 */
export async function drainWorker(
  worker: Worker,
  runs: RunsInProgress,
  log: Logger,
  timeoutMs: number,
  handBackMs: number,
): Promise<void> {
  const closing = closed(worker);
  const waiting = runs.inProgress;
  if (waiting > 0)
    log.info(
      { runs: waiting, timeoutSeconds: timeoutMs / 1000 },
      `waiting for ${waiting} run(s) to finish, up to ${timeoutMs / 1000} s (queue.shutdownTimeoutSeconds, LESTRADE_SHUTDOWN_TIMEOUT_SECONDS)`,
    );
  if (await within(closing, timeoutMs)) return;
  const left = runs.interruptAll();
  log.warn(
    { runs: left, timeoutSeconds: timeoutMs / 1000 },
    `shutdown timeout: handing ${left} run(s) back to the queue; another worker resumes each from its checkpoint`,
  );
  if (!(await within(closing, handBackMs)))
    log.warn(
      { worker: worker.name, graceMs: handBackMs },
      'worker did not close in time; leaving its jobs to stalled-job recovery',
    );
}
