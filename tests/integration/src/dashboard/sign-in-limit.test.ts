import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { SignInLimit } from '../../../../src/dashboard/sign-in-limit.js';
import { redisClient } from '../../../helpers/redis-client.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { startTestService, waitFor } from '../../../helpers/service.js';

const TOKEN = 'sign-in-limit-token-0123456789';

describe('sign-in attempts counted per address in Redis', () => {
  const r = redisClient();

  it('lets up to the limit through, then says how long to wait; other addresses are not affected', async () => {
    const limit = new SignInLimit(r.client, 3, 600);
    for (let i = 0; i < 3; i++) expect(await limit.take('10.0.0.1')).toBe(0);
    const wait = await limit.take('10.0.0.1');
    expect(wait).toBeGreaterThan(590);
    expect(wait).toBeLessThanOrEqual(600);
    expect(await limit.take('10.0.0.2')).toBe(0);
    // The window starts at the first attempt: later ones do not extend it.
    expect(await r.client.ttl(keys.signInFailures('10.0.0.1'))).toBeLessThanOrEqual(600);
    expect(JSON.stringify(await r.client.keys('*'))).not.toContain('10.0.0.1');
  });

  it('counts an attempt before it is compared: of a concurrent burst, only the limit gets through', async () => {
    const limit = new SignInLimit(r.client, 10, 600);
    const waits = await Promise.all(Array.from({ length: 300 }, () => limit.take('10.0.0.9')));
    expect(waits.filter((w) => w === 0)).toHaveLength(10);
  });

  it('a right token gives its attempt back, so only failures stay counted', async () => {
    const limit = new SignInLimit(r.client, 2, 600);
    for (let i = 0; i < 5; i++) {
      expect(await limit.take('10.0.0.5')).toBe(0);
      await limit.giveBack('10.0.0.5');
    }
    expect(await limit.take('10.0.0.5')).toBe(0);
    expect(await limit.take('10.0.0.5')).toBe(0);
    expect(await limit.take('10.0.0.5')).toBeGreaterThan(0);
    await limit.giveBack('10.0.0.6');
    expect(await r.client.get(keys.signInFailures('10.0.0.6'))).toBeNull();
  });

  it('says what is left of the window, and re-arms the whole window for a count that somehow has no expiry', async () => {
    const limit = new SignInLimit(r.client, 2, 600);
    await limit.take('10.0.0.4');
    await limit.take('10.0.0.4');
    await r.client.expire(keys.signInFailures('10.0.0.4'), 100);
    const left = await limit.take('10.0.0.4');
    expect(left).toBeGreaterThan(90);
    expect(left).toBeLessThanOrEqual(100);
    await r.client.persist(keys.signInFailures('10.0.0.4'));
    expect(await limit.take('10.0.0.4')).toBe(600);
    expect(await r.client.ttl(keys.signInFailures('10.0.0.4'))).toBeGreaterThan(590);
  });

  it('forgets the attempts when the window ends', async () => {
    const limit = new SignInLimit(r.client, 1, 1);
    await limit.take('10.0.0.3');
    expect(await limit.take('10.0.0.3')).toBeGreaterThan(0);
    await waitFor(
      'the window to end',
      async () => (await r.client.exists(keys.signInFailures('10.0.0.3'))) === 0,
      5_000,
    );
    expect(await limit.take('10.0.0.3')).toBe(0);
  });
});

/** POST /login from a given loopback address (Linux routes all of 127/8 to lo). */
function postLogin(base: string, token: string, from: string): Promise<{ status: number; retryAfter?: string }> {
  const url = new URL('/login', base);
  const body = new URLSearchParams({ token }).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        localAddress: from,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: url.origin, accept: 'text/html' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * n POST /login requests with wrong tokens whose bodies all arrive at once: every request's headers are
 * sent and its connection open first, then every body is written in the same tick, so the server runs
 * the n handlers side by side (what a guesser's burst does).
 */
async function burstOfLogins(base: string, n: number, from: string): Promise<number[]> {
  const url = new URL('/login', base);
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const started = Array.from({ length: n }, (_, i) => {
    const body = new URLSearchParams({ token: `guess-${i}` }).toString();
    const headers = {
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(Buffer.byteLength(body)),
      origin: url.origin,
      accept: 'text/html',
    };
    const req = request(url, { method: 'POST', localAddress: from, agent, headers });
    const status = new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
    });
    req.flushHeaders();
    const connected = new Promise<void>((resolve) =>
      req.on('socket', (socket) => (socket.connecting ? socket.once('connect', () => resolve()) : resolve())),
    );
    return { req, body, status, connected };
  });
  await Promise.all(started.map((s) => s.connected));
  // Give the server a moment to have read every request's headers.
  await new Promise((r) => setTimeout(r, 200));
  for (const s of started) s.req.end(s.body);
  const statuses = await Promise.all(started.map((s) => s.status));
  agent.destroy();
  return statuses;
}

describe('POST /login under guessing', { timeout: 60_000 }, () => {
  const h = serviceHarness();

  it('answers 429 with Retry-After after 10 failures from one address, even to the right token; others sign in', async () => {
    h.svc = await startTestService(h.redis.url, { LESTRADE_API_TOKEN: TOKEN }, { http: true, workers: false });
    const base = h.svc.base;
    for (let i = 0; i < 10; i++) expect((await postLogin(base, `guess-${i}`, '127.0.0.1')).status).toBe(401);
    const locked = await postLogin(base, TOKEN, '127.0.0.1');
    expect(locked.status).toBe(429);
    expect(Number(locked.retryAfter)).toBeGreaterThan(800);
    expect(Number(locked.retryAfter)).toBeLessThanOrEqual(900);
    expect(await postLogin(base, TOKEN, '127.0.0.2')).toMatchObject({ status: 303 });
  });

  it('compares at most the limit of a burst of 300 concurrent wrong tokens; the rest get 429 uncompared', async () => {
    h.svc = await startTestService(h.redis.url, { LESTRADE_API_TOKEN: TOKEN }, { http: true, workers: false });
    const base = h.svc.base;
    const statuses = await burstOfLogins(base, 300, '127.0.0.3');
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(290);
  });
});
