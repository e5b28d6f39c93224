import type { Worker } from 'bullmq';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/log.js';
import { closeWorker } from '../../../../src/queue/close-worker.js';

// Worker.close() can hang on a blocking connection caught reconnecting (bullmq#4656): a worker whose
// close() never settles stands in for that, since a real hang cannot be caused on demand.

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger(
    'info',
    new Writable({
      write(c: Buffer, _e, cb) {
        for (const l of c.toString().split('\n')) if (l.trim()) lines.push(JSON.parse(l));
        cb();
      },
    }),
  );
  return { log, lines };
}

const fakeWorker = (close: () => Promise<void>) => ({ name: 'investigations', close }) as unknown as Worker;

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
