import type { Worker } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { READY_WAIT_MS, closeWorker, drainWorker } from '../../../../src/queue/close-worker.js';
import { captureLog } from '../../../helpers/log-capture.js';

// Worker.close() can hang on a blocking connection caught reconnecting (bullmq#4656): a worker whose
// close() never settles stands in for that, since a real hang cannot be caused on demand.

const capture = () => captureLog('info');

const fakeWorker = (close: () => Promise<void>) =>
  ({ name: 'investigations', close, waitUntilReady: async () => undefined }) as unknown as Worker;

describe('closeWorker', () => {
  it('returns as soon as the worker has closed, saying nothing', async () => {
    const { log, lines } = capture();
    const started = Date.now();
    await closeWorker(
      fakeWorker(async () => {}),
      log,
      5_000,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    await closeWorker(
      fakeWorker(() => Promise.reject(new Error('connection lost'))),
      log,
      5_000,
    );
    expect(lines).toEqual([]);
  });

  it('gives up after the grace period, leaving the jobs to stalled-job recovery, and says so', async () => {
    const { log, lines } = capture();
    const started = Date.now();
    await closeWorker(
      fakeWorker(() => new Promise(() => {})),
      log,
      150,
    );
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(140);
    expect(took).toBeLessThan(2_000);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        worker: 'investigations',
        graceMs: 150,
        msg: 'worker did not close in time; leaving its jobs to stalled-job recovery',
      }),
    ]);
  });
});

/** Runs in progress as the worker's CancelSignals reports them; interruptAll ends the worker's close. */
function runs(n: number, onInterrupt: () => void = () => {}) {
  const r = {
    inProgress: n,
    interrupted: 0,
    interruptAll() {
      r.interrupted += 1;
      onInterrupt();
      return r.inProgress;
    },
  };
  return r;
}

/** A worker whose close() ends when `end` is called. */
function closing() {
  let end!: () => void;
  const done = new Promise<void>((r) => (end = r));
  return { worker: fakeWorker(() => done), end: () => end() };
}

describe('drainWorker', () => {
  it('says how many runs it waits for, and returns once they are done, interrupting none', async () => {
    const { log, lines } = capture();
    const w = closing();
    const r = runs(2);
    setTimeout(w.end, 50);
    await drainWorker(w.worker, r, log, 5_000, 5_000);
    expect(r.interrupted).toBe(0);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        runs: 2,
        timeoutSeconds: 5,
        msg: 'waiting for 2 run(s) to finish, up to 5 s (queue.shutdownTimeoutSeconds, LESTRADE_SHUTDOWN_TIMEOUT_SECONDS)',
      }),
    ]);
  });

  it('says nothing when no run is in progress', async () => {
    const { log, lines } = capture();
    await drainWorker(
      fakeWorker(async () => {}),
      runs(0),
      log,
      5_000,
      5_000,
    );
    expect(lines).toEqual([]);
  });

  it('past the timeout interrupts the runs, so they hand their jobs back, and waits for that', async () => {
    const { log, lines } = capture();
    const w = closing();
    const r = runs(1, () => setTimeout(w.end, 20));
    await drainWorker(w.worker, r, log, 100, 5_000);
    expect(r.interrupted).toBe(1);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [
        30,
        'waiting for 1 run(s) to finish, up to 0.1 s (queue.shutdownTimeoutSeconds, LESTRADE_SHUTDOWN_TIMEOUT_SECONDS)',
      ],
      [40, 'shutdown timeout: handing 1 run(s) back to the queue; another worker resumes each from its checkpoint'],
    ]);
  });

  it('leaves a worker that still does not close to stalled-job recovery, and says so', async () => {
    const { log, lines } = capture();
    const r = runs(1);
    await drainWorker(
      fakeWorker(() => new Promise(() => {})),
      r,
      log,
      50,
      50,
    );
    expect(r.interrupted).toBe(1);
    expect(lines.at(-1)).toEqual(
      expect.objectContaining({
        level: 40,
        worker: 'investigations',
        graceMs: 50,
        msg: 'worker did not close in time; leaving its jobs to stalled-job recovery',
      }),
    );
    expect(lines).toHaveLength(3);
  });

  it('lets a worker that still connects finish connecting before closing it, bounded', async () => {
    // Closed mid-connect, BullMQ leaves its start-up promises rejected with nobody listening (seen as
    // unhandled "Connection is closed" when a service stopped right after starting, e.g. in
    // tests/integration/sources/alertmanager/webhook.test.ts).
    const { log } = capture();
    const order: string[] = [];
    const connecting = {
      name: 'investigations',
      waitUntilReady: () => new Promise<void>((r) => setTimeout(() => (order.push('ready'), r()), 100)),
      close: async () => void order.push('close'),
    } as unknown as Worker;
    await closeWorker(connecting, log, 5_000);
    expect(order).toEqual(['ready', 'close']);
    // A worker that never connects (Redis down) is still closed, after READY_WAIT_MS at most.
    const neverReady = {
      name: 'investigations',
      waitUntilReady: () => new Promise(() => {}),
      close: async () => void order.push('closed anyway'),
    } as unknown as Worker;
    const started = Date.now();
    await closeWorker(neverReady, log, 10_000);
    expect(order.at(-1)).toBe('closed anyway');
    expect(Date.now() - started).toBeGreaterThanOrEqual(READY_WAIT_MS - 50);
    expect(Date.now() - started).toBeLessThan(READY_WAIT_MS + 2_000);
  });
});
