import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../src/store/keys.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { anyJson, fcParams, mutationsOf, toJsonText } from './arbitraries.js';
import { WEBHOOK_ENDPOINTS, type WebhookEndpoint } from './webhook-endpoints.js';

/**
 * Properties of every webhook endpoint against the real service on a real Redis:
 * (a) any JSON, or any mutation of a real payload, gets 2xx or 4xx (5xx only means Redis is down),
 *     a payload the vendor's schema refuses creates nothing, and a repeat creates nothing new;
 * (b) whatever strings a valid payload holds are stored, and read back, exactly.
 */
let redis: TestRedis;
let admin: Redis;
let svc: TestService;

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
  // No LLM: nothing runs, so every claim stays visible as a record and a queued job.
  svc = await startTestService(redis.url, Object.assign({ LOG_LEVEL: 'silent' }, ...WEBHOOK_ENDPOINTS.map((e) => e.env)));
});
afterAll(async () => {
  await svc?.close();
  admin?.disconnect();
  await redis?.stop();
});

const created = () => admin.zcard(keys.index());
const post = (e: WebhookEndpoint, text: string) =>
  fetch(`${svc.base}${e.path}`, { method: 'POST', headers: e.sign(text), body: text });

/** Fresh 16-hex-digit identities: a run prefix, then a counter. */
const runPrefix = randomBytes(4).toString('hex');
let counter = 0;
const nextId = () => `${runPrefix}${(counter++).toString(16).padStart(8, '0')}`;

function parseOrUndefined(text: string): unknown {
  try { return JSON.parse(text); } catch { return undefined; }
}

describe.each(WEBHOOK_ENDPOINTS)('POST $path under fuzzing', (endpoint) => {
  /** Posts a body, checking the status class and that a refused payload creates nothing. */
  async function checkDelivery(text: string): Promise<{ status: number; body: unknown; createdNow: number }> {
    const before = await created();
    const res = await post(endpoint, text);
    const body = await res.json().catch(() => undefined);
    const createdNow = (await created()) - before;
    const doc = parseOrUndefined(text);
    const valid = doc !== undefined && endpoint.specAccepts(doc);
    expect(res.status, `${res.status} ${JSON.stringify(body)}`).toBeLessThan(500);
    if (valid) expect(res.status, JSON.stringify(body)).toBe(200);
    else {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(createdNow).toBe(0);
    }
    return { status: res.status, body, createdNow };
  }

  it('(a) answers any JSON value with 2xx or 4xx, creating nothing from what the schema refuses', async () => {
    await fc.assert(fc.asyncProperty(anyJson, async (value) => { await checkDelivery(toJsonText(value)); }), fcParams(300));
  });

  it('(a) answers any mutation of a real payload with 2xx or 4xx; a repeat of an accepted one creates nothing new', async () => {
    await fc.assert(fc.asyncProperty(mutationsOf(endpoint.fixtures), async (doc) => {
      const text = toJsonText(endpoint.freshen(doc, nextId));
      const first = await checkDelivery(text);
      if (first.status !== 200) return;
      const again = await checkDelivery(text);
      expect(again.createdNow).toBe(0);
    }), fcParams(400));
  });

  it('(b) stores what a valid payload holds exactly, and a repeat creates nothing new', async () => {
    await fc.assert(fc.asyncProperty(endpoint.valid, async (doc) => {
      const payload = endpoint.freshen(doc, nextId);
      const text = JSON.stringify(payload);
      expect(endpoint.specAccepts(payload)).toBe(true);
      const first = await checkDelivery(text);
      const { queued } = first.body as { queued: string[] };
      const expected = endpoint.expectedOpenIssues(payload);
      expect(queued).toHaveLength(expected.length);
      for (const [i, id] of queued.entries()) {
        const res = await fetch(`${svc.base}/api/investigations/${id}`);
        const inv = JSON.parse(await res.text());
        // Compared as JSON text: own "__proto__" keys, lone surrogates and key order all count.
        expect(JSON.stringify(inv.issue)).toBe(JSON.stringify(expected[i]));
        expect(inv.title).toBe(expected[i]!.title);
      }
      const again = await checkDelivery(text);
      expect(again.createdNow).toBe(0);
      expect((again.body as { queued: string[] }).queued).toEqual([]);
    }), fcParams(150));
  });
});
