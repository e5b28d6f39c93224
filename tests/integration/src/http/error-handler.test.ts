import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import express from 'express';
import { Redis, ReplyError } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InputError, RetryableError } from '../../../../src/errors.js';
import { errorHandler } from '../../../../src/http/error-handler.js';
import { isRedisUnavailable } from '../../../../src/http/redis-unavailable.js';
import { createLogger } from '../../../../src/log.js';
import { createFastFailRedis } from '../../../../src/redis/redis-connections.js';
import { freePort } from '../../../helpers/free-port.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';

// Only Redis being unreachable (or a service saying "later") is a 503, which senders retry;
// a bug is a 500 with a request id that the log carries too, and no stack in the answer.

let redis: TestRedis;
let live: Redis;
let dead: ReturnType<typeof createFastFailRedis>;
let server: Server;
let base: string;
const logs: Array<Record<string, unknown>> = [];
let nextError: () => Promise<never>;

beforeAll(async () => {
  redis = await startRedis();
  live = new Redis(redis.url);
  dead = createFastFailRedis(`redis://127.0.0.1:${await freePort()}`);
  dead.on('error', () => {});
  const sink = new Writable({
    write(chunk: Buffer, _e, cb) {
      for (const l of chunk.toString().split('\n')) if (l.trim()) logs.push(JSON.parse(l));
      cb();
    },
  });
  const app = express();
  app.post('/boom', async () => {
    await nextError();
  });
  app.use(errorHandler(createLogger('info', sink)));
  server = await new Promise<Server>((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  live.disconnect();
  dead.disconnect();
  await new Promise((r) => server.close(r));
  await redis.stop();
});

async function answerTo(err: () => Promise<never>) {
  nextError = err;
  logs.length = 0;
  const res = await fetch(`${base}/boom`, { method: 'POST' });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const rejection = async (p: Promise<unknown>): Promise<Error> =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: Error) => e,
  );

describe('the API error handler', () => {
  it('answers 503 when Redis cannot be reached, so the sender retries', async () => {
    const unreachable = await rejection(dead.set('k', 'v'));
    expect(isRedisUnavailable(unreachable)).toBe(true);
    const r = await answerTo(() => Promise.reject(unreachable));
    expect(r).toMatchObject({ status: 503, body: { error: 'temporarily unable to store the request; retry' } });
    expect(logs).toEqual([expect.objectContaining({ msg: 'request failed', err: unreachable.message, path: '/boom' })]);
  });

  it('answers 503 when Redis is up but cannot take writes now (loading, read-only, out of memory)', async () => {
    for (const reply of [
      'LOADING Redis is loading the dataset in memory',
      "READONLY You can't write against a read only replica.",
      "OOM command not allowed when used memory > 'maxmemory'.",
      'MASTERDOWN Link with MASTER is down',
      'NOPERM this user has no permissions',
    ]) {
      const err = new ReplyError(reply);
      expect(isRedisUnavailable(err), reply).toBe(true);
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- err is whatever the case rejects with
      expect((await answerTo(() => Promise.reject(err))).status, reply).toBe(503);
    }
  });

  it('answers 503 for a service that said "later" (a RetryableError)', async () => {
    expect((await answerTo(() => Promise.reject(new RetryableError('Jira answered 503')))).status).toBe(503);
  });

  it('answers 500 with a request id for a bug, logging the id, the message and the stack, and showing neither', async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'labels')");
    const r = await answerTo(() => Promise.reject(bug));
    expect(r.status).toBe(500);
    expect(r.body).toEqual({ error: 'internal error', requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      level: 50,
      msg: 'request failed: internal error',
      requestId: r.body.requestId,
      err: bug.message,
      path: '/boom',
    });
    expect(logs[0]!.stack).toContain('TypeError: Cannot read properties of undefined');
    expect(JSON.stringify(r.body)).not.toContain('labels');
    const again = await answerTo(() => Promise.reject(bug));
    expect(again.body.requestId).not.toBe(r.body.requestId);
  });

  it('answers 500 for a Redis reply only our own code can cause (WRONGTYPE, a script error)', async () => {
    await live.set('a-string', 'x');
    const wrongType = await rejection(live.hget('a-string', 'f'));
    expect(wrongType).toBeInstanceOf(ReplyError);
    expect(isRedisUnavailable(wrongType)).toBe(false);
    expect((await answerTo(() => Promise.reject(wrongType))).status).toBe(500);
    const script = await rejection(live.eval('return redis.call("NOSUCHCOMMAND")', 0));
    expect(isRedisUnavailable(script)).toBe(false);
  });

  it('answers 500 for anything thrown that is not an Error', async () => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the case: a rejection that is no Error
    const r = await answerTo(() => Promise.reject('a string'));
    expect(r).toMatchObject({ status: 500, body: { error: 'internal error' } });
    expect(logs[0]).toMatchObject({ err: 'a string', requestId: r.body.requestId });
    expect(isRedisUnavailable('Connection is closed.')).toBe(false);
    expect(isRedisUnavailable(undefined)).toBe(false);
  });

  it('keeps 4xx as they were: bad input names the field, other client errors keep their status', async () => {
    expect(
      await answerTo(() => Promise.reject(new InputError('alerts.0.fingerprint', 'must be 16 hex digits'))),
    ).toMatchObject({
      status: 400,
      body: { error: 'alerts.0.fingerprint: must be 16 hex digits', field: 'alerts.0.fingerprint' },
    });
    expect(await answerTo(() => Promise.reject(Object.assign(new Error('too big'), { status: 413 })))).toMatchObject({
      status: 413,
      body: { error: 'request body too large' },
    });
    expect(logs).toEqual([
      expect.objectContaining({ level: 40, msg: 'request rejected: body too large', path: '/boom' }),
    ]);
    expect(
      await answerTo(() => Promise.reject(Object.assign(new Error('nope'), { type: 'entity.too.large' }))),
    ).toMatchObject({ status: 413 });
    expect(
      await answerTo(() => Promise.reject(Object.assign(new Error('unsupported charset'), { status: 415 }))),
    ).toMatchObject({ status: 415, body: { error: 'unsupported charset' } });
    expect((await answerTo(() => Promise.reject(Object.assign(new Error('upstream'), { status: 502 })))).status).toBe(
      500,
    );
  });

  it("keeps exactly the 4xx statuses: 400 and 499 are the client's, 399 and 500 are bugs", async () => {
    const withStatus = (status: number) =>
      answerTo(() => Promise.reject(Object.assign(new Error(`status ${status}`), { status })));
    expect(await withStatus(400)).toMatchObject({ status: 400, body: { error: 'status 400' } });
    expect(await withStatus(499)).toMatchObject({ status: 499, body: { error: 'status 499' } });
    for (const status of [399, 500]) {
      const r = await withStatus(status);
      expect(r, String(status)).toMatchObject({
        status: 500,
        body: { error: 'internal error', requestId: expect.any(String) },
      });
    }
  });
});
