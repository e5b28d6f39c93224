import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InterruptedError } from '../../../../src/errors.js';
import { CancelSignals } from '../../../../src/queue/cancel-signals.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { waitFor } from '../../../helpers/service.js';
import { captureLog } from '../../../helpers/log-capture.js';

// A cancel published by any process reaches the runs of that investigation in every worker.

let redis: TestRedis;
let client: Redis;

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
});
afterAll(async () => {
  client.disconnect();
  await redis.stop();
});

function capture() {
  const { log, lines: logs } = captureLog('info');
  return { log, logs };
}

describe('CancelSignals', () => {
  it('counts the runs in progress and, at shutdown, interrupts every one of this process only', async () => {
    const { log } = capture();
    const [one, two] = await Promise.all([
      CancelSignals.start(new Redis(redis.url), log),
      CancelSignals.start(new Redis(redis.url), log),
    ]);
    try {
      expect(one.inProgress).toBe(0);
      const a1 = one.register('a');
      const a2 = one.register('a');
      const b = one.register('b');
      const released = one.register('c');
      one.release('c', released);
      const elsewhere = two.register('a');
      expect([one.inProgress, two.inProgress]).toEqual([3, 1]);
      expect(one.interruptAll()).toBe(3);
      for (const c of [a1, a2, b]) {
        expect(c.signal.reason).toBeInstanceOf(InterruptedError);
        expect((c.signal.reason as Error).message).toBe('the process is shutting down');
      }
      expect(released.signal.aborted).toBe(false);
      expect(elsewhere.signal.aborted).toBe(false);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('aborts every run of the cancelled investigation in every subscribed process, and no other', async () => {
    const { log } = capture();
    const [one, two] = await Promise.all([
      CancelSignals.start(new Redis(redis.url), log),
      CancelSignals.start(new Redis(redis.url), log),
    ]);
    try {
      const a1 = one.register('a');
      const a2 = one.register('a');
      const b = one.register('b');
      const a3 = two.register('a');
      expect(await CancelSignals.publish(client, 'a')).toBe(2);
      await waitFor('the aborts', async () => a1.signal.aborted && a3.signal.aborted);
      expect(a2.signal.aborted).toBe(true);
      expect((a1.signal.reason as Error).message).toBe('investigation cancelled');
      expect(b.signal.aborted).toBe(false);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('leaves a released run alone, and keeps the other runs of the id', async () => {
    const { log } = capture();
    const signals = await CancelSignals.start(new Redis(redis.url), log);
    const first = signals.register('a');
    const second = signals.register('a');
    signals.release('a', first);
    signals.abort('a');
    expect(first.signal.aborted).toBe(false);
    expect(second.signal.aborted).toBe(true);
    signals.release('a', second);
    const third = signals.register('a');
    signals.release('x', third);
    signals.abort('a');
    expect(third.signal.aborted).toBe(true);
    await signals.close();
  });

  it("logs its connection's errors, and disconnects it when closed", async () => {
    const { log, logs } = capture();
    const subscriber = new Redis(redis.url);
    const signals = await CancelSignals.start(subscriber, log);
    subscriber.emit('error', new Error('connection reset'));
    expect(logs).toEqual([
      expect.objectContaining({ level: 40, err: 'connection reset', msg: 'cancel channel connection error' }),
    ]);
    await signals.close();
    await waitFor('the connection to end', async () => subscriber.status === 'end');
    expect(await CancelSignals.publish(client, 'a')).toBe(0);
  });
});
