import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { SignInLimit } from '../../../../src/dashboard/sign-in-limit.js';
import { redisClient } from '../../../helpers/redis-client.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { startTestService, waitFor } from '../../../helpers/service.js';

const TOKEN = 'sign-in-limit-token-0123456789';

describe('failed sign-ins counted per address in Redis', () => {
  const r = redisClient();

  it('allows up to the limit, then says how long to wait; other addresses are not affected', async () => {
    const limit = new SignInLimit(r.client, 3, 600);
    for (let i = 0; i < 3; i++) {
      expect(await limit.retryAfter('10.0.0.1')).toBe(0);
      await limit.recordFailure('10.0.0.1');
    }
    const wait = await limit.retryAfter('10.0.0.1');
    expect(wait).toBeGreaterThan(590);
    expect(wait).toBeLessThanOrEqual(600);
    expect(await limit.retryAfter('10.0.0.2')).toBe(0);
    // The window starts at the first failure: later failures do not extend it.
    expect(await r.client.ttl(keys.signInFailures('10.0.0.1'))).toBeLessThanOrEqual(600);
    expect(JSON.stringify(await r.client.keys('*'))).not.toContain('10.0.0.1');
  });

  it('says what is left of the window, and the whole window for a count that somehow has no expiry', async () => {
    const limit = new SignInLimit(r.client, 2, 600);
    await limit.recordFailure('10.0.0.4');
    await limit.recordFailure('10.0.0.4');
    await r.client.expire(keys.signInFailures('10.0.0.4'), 100);
    const left = await limit.retryAfter('10.0.0.4');
    expect(left).toBeGreaterThan(90);
    expect(left).toBeLessThanOrEqual(100);
    await r.client.persist(keys.signInFailures('10.0.0.4'));
    expect(await limit.retryAfter('10.0.0.4')).toBe(600);
  });

  it('forgets the failures when the window ends', async () => {
    const limit = new SignInLimit(r.client, 1, 1);
    await limit.recordFailure('10.0.0.3');
    expect(await limit.retryAfter('10.0.0.3')).toBeGreaterThan(0);
    await waitFor('the window to end', async () => (await limit.retryAfter('10.0.0.3')) === 0, 5_000);
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
});
