import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { startTestService, type TestService } from '../../../helpers/service.js';
import { DAY, giveVerdict, HOUR, qualityStore, seedInvestigation } from '../../../helpers/quality-records.js';

// GET /api/quality on a known set of investigations with known verdicts, through the real service.
const TOKEN = 'quality-token-5d8f2a7c1e';
let redis: TestRedis;
let client: Redis;
let svc: TestService;
const ids: Record<string, string> = {};

const get = async (path: string, token: string | null = TOKEN) => {
  const res = await fetch(`${svc.base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
  svc = await startTestService(redis.url, { LESTRADE_API_TOKENS: `ops:${TOKEN}` }, { workers: false });
  const store = qualityStore(client);
  const now = Date.now();
  const at = now - DAY;
  const finished = at + 5 * 60_000;
  const seed = (name: string, s: Parameters<typeof seedInvestigation>[2]) =>
    seedInvestigation(store, client, s).then((id) => (ids[name] = id));
  await seed('disk1', {
    fingerprint: 'fp-disk-a',
    alertname: 'DiskFull',
    createdAt: at,
    resolvedAt: finished + HOUR,
    cost: { amount: 0.1, currency: 'USD', model: 'model-a' },
  });
  // DiskFull on fp-disk-a again 2 h after it resolved: a recurrence (not yet answered, so not counted itself).
  await seed('again', {
    fingerprint: 'fp-disk-a',
    alertname: 'DiskFull',
    createdAt: finished + 3 * HOUR,
    status: 'queued',
  });
  await seed('disk2', {
    fingerprint: 'fp-disk-b',
    alertname: 'DiskFull',
    createdAt: at,
    resolvedAt: finished + 3 * HOUR,
    cost: { amount: 0.3, currency: 'USD', model: 'model-a' },
  });
  await seed('cpu', {
    fingerprint: 'fp-cpu',
    alertname: 'CpuHigh',
    createdAt: at,
    cost: { amount: null, currency: 'USD', model: 'model-b' },
  });
  await seed('ticket', {
    fingerprint: 'OPS-7',
    source: 'github',
    title: 'Login broken',
    createdAt: at,
    cost: { amount: 0.2, currency: 'USD', model: 'model-b' },
  });
  await seed('failed', { fingerprint: 'fp-failed', alertname: 'DiskFull', createdAt: at, status: 'failed' });
  await seed('old', {
    fingerprint: 'fp-old',
    alertname: 'DiskFull',
    createdAt: now - 40 * DAY,
    cost: { amount: 0.5, currency: 'USD', model: 'model-a' },
  });
  // Written back from a confirmed predecessor without the model (memory's `reused` field); '' on the others.
  await client.hset(keys.investigation(ids.ticket!), 'reused', JSON.stringify({ from: ids.old }));
  await client.hset(keys.investigation(ids.cpu!), 'reused', '');
  await giveVerdict(client, ids.disk1!, 'correct', 'alice', now - HOUR);
  await giveVerdict(client, ids.disk2!, 'wrong', 'bob', now - HOUR, { rootCause: 'the NFS mount hung' });
  await giveVerdict(client, ids.disk2!, 'correct', 'carol', now - HOUR);
  await giveVerdict(client, ids.cpu!, 'partly', 'alice', now - HOUR);
  await giveVerdict(client, ids.failed!, 'wrong', 'alice', now - HOUR);
  await giveVerdict(client, ids.old!, 'correct', 'alice', now - HOUR);
}, 60_000);
afterAll(async () => {
  client?.disconnect();
  await svc?.close();
  await redis?.stop();
});

describe('GET /api/quality', () => {
  it('counts the answered investigations of the window, overall', async () => {
    const { status, body } = await get('/api/quality?days=30');
    expect(status).toBe(200);
    expect(body).toMatchObject({ days: 30, currency: 'USD' });
    expect(body.overall).toEqual({
      investigations: 4,
      rated: 3,
      correct: 1,
      partly: 1,
      wrong: 1,
      unrated: 1,
      accuracy: 0.5,
      // The rated ones' known costs (0.10 + 0.30; CpuHigh's model has no price) per correct answer.
      costPerCorrect: 0.4,
      medianSecondsToResolve: 7200,
      recurrenceRate: 0.5,
      reused: 1,
    });
  });

  it('breaks the figures down by source, alert (its alertname, else the title) and model', async () => {
    const { body } = await get('/api/quality');
    expect(body.days).toBe(30);
    expect(Object.keys(body.bySource)).toEqual(['alertmanager', 'github']);
    expect(body.bySource.github).toMatchObject({
      reused: 1,
      investigations: 1,
      rated: 0,
      unrated: 1,
      accuracy: null,
      costPerCorrect: null,
    });
    expect(body.bySource.alertmanager).toMatchObject({ rated: 3, accuracy: 0.5 });
    expect(Object.keys(body.byAlert)).toEqual(['CpuHigh', 'DiskFull', 'Login broken']);
    expect(body.byAlert.DiskFull).toMatchObject({
      correct: 1,
      wrong: 1,
      accuracy: 0.5,
      costPerCorrect: 0.4,
      recurrenceRate: 0.5,
    });
    expect(body.byAlert.CpuHigh).toMatchObject({
      partly: 1,
      accuracy: 0.5,
      costPerCorrect: null,
      recurrenceRate: null,
    });
    expect(body.byModel['model-a']).toMatchObject({ investigations: 2, medianSecondsToResolve: 7200 });
    expect(body.byModel['model-b']).toMatchObject({ investigations: 2, rated: 1 });
  });

  it('gives one point per UTC day of the window, today last', async () => {
    const { body } = await get('/api/quality?days=7');
    const days = body.perDay as Array<{ date: string; investigations: number; rated: number; accuracy: number | null }>;
    expect(days).toHaveLength(7);
    expect(days.at(-1)!.date).toBe(new Date().toISOString().slice(0, 10));
    expect(days.reduce((n, d) => n + d.investigations, 0)).toBe(4);
    expect(days.reduce((n, d) => n + d.rated, 0)).toBe(3);
  });

  it('reads further back with more days', async () => {
    const { body } = await get('/api/quality?days=60');
    expect(body.overall).toMatchObject({ investigations: 5, correct: 2, accuracy: 0.625 });
    expect(body.perDay).toHaveLength(60);
  });

  it.each([['0'], ['366'], ['abc'], ['7.5'], ['-3'], ['']])('refuses days=%s, naming the field', async (days) => {
    const { status, body } = await get(`/api/quality?days=${days}`);
    expect(status).toBe(400);
    expect(body).toMatchObject({ field: 'days', error: expect.stringContaining('from 1 to 365') });
  });

  it('refuses a repeated days', async () => {
    expect((await get('/api/quality?days=3&days=4')).status).toBe(400);
  });

  it('asks for the token as the other API reads do', async () => {
    expect((await get('/api/quality', null)).status).toBe(401);
    expect((await get('/api/quality/wrong', 'not-the-token')).status).toBe(401);
  });

  it('lists the answers judged wrong, with the root cause people stated', async () => {
    const { body } = await get('/api/quality/wrong?days=30');
    expect(body.items).toEqual([{ id: ids.disk2, createdAt: expect.any(String), rootCause: 'the NFS mount hung' }]);
  });
});

describe('GET /api/investigations/:id outcome', () => {
  it('shows the verdict, the resolution and the recurrence', async () => {
    expect((await get(`/api/investigations/${ids.disk1}`)).body.outcome).toEqual({
      verdict: 'correct',
      resolvedAfterSeconds: 3600,
      recurredWithin24h: true,
      recurredWithin7d: true,
      reruns: 0,
      followUps: 0,
      remediation: null,
    });
    expect((await get(`/api/investigations/${ids.cpu}`)).body.outcome).toMatchObject({
      verdict: 'partly',
      resolvedAfterSeconds: null,
      recurredWithin24h: null,
    });
  });
});
