import { Redis } from 'ioredis';
import { keys } from '../../../../src/redis/keys.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amFixture } from '../../../helpers/fixtures.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { startTestService, type TestService } from '../../../helpers/service.js';

let redis: TestRedis;
let svc: TestService;
let admin: Redis;
const auth = { authorization: 'Bearer key-2' };
const api = (path: string, headers: Record<string, string> = auth) => fetch(`${svc.base}/api${path}`, { headers });

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
  svc = await startTestService(redis.url, { LESTRADE_API_TOKEN: 'key-1, key-2' });
  for (const name of ['group-firing-truncated', 'group-next'] as const) {
    await fetch(`${svc.base}/webhooks/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(amFixture(name).body),
    });
    await new Promise((r) => setTimeout(r, 5));
  }
});
afterAll(async () => {
  admin?.disconnect();
  await svc?.close();
  await redis?.stop();
});

describe('results API', () => {
  it('requires one of the configured tokens, leaving health checks open', async () => {
    expect((await api('/investigations', {})).status).toBe(401);
    expect((await api('/investigations', { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await api('/investigations', { authorization: 'Bearer key-1' })).status).toBe(200);
    expect((await fetch(`${svc.base}/healthz`)).status).toBe(200);
  });

  it('lists newest first with limit and offset', async () => {
    const all = (await (await api('/investigations')).json()).items as Array<{
      id: string;
      title: string;
      createdAt: string;
    }>;
    expect(all).toHaveLength(3);
    // group-next arrived last and brought the one new alert (payment-api-c).
    expect(all[0]!.title).toBe('KubePodCrashLooping: Pod payment-api-c is crash looping');
    expect([...all].sort((a, b) => b.createdAt.localeCompare(a.createdAt)).map((i) => i.id)).toEqual(
      all.map((i) => i.id),
    );
    const page = (await (await api('/investigations?limit=1&offset=1')).json()).items as Array<{ id: string }>;
    expect(page.map((i) => i.id)).toEqual([all[1]!.id]);
  });

  it('answers 404 for an unknown id and never exposes secrets', async () => {
    const res = await api('/investigations/nope');
    expect(res.status).toBe(404);
    const first = (await (await api('/investigations')).json()).items[0];
    const text = await (await api(`/investigations/${first.id}`)).text();
    expect(text).not.toContain('key-2');
    expect(JSON.stringify(svc.logs)).not.toContain('key-2');
  });

  it('answers 404 for anything but an investigation id, even a key of another type beside a record', async () => {
    const first = (await (await api('/investigations')).json()).items[0];
    // A running investigation has a checkpoint (a string key) next to its record (a hash).
    await admin.set(keys.checkpoint(first.id), '{}');
    for (const id of [
      `${first.id}:checkpoint`,
      first.id.toUpperCase().replace(/-/g, ''),
      '..',
      '%00',
      'x'.repeat(300),
    ]) {
      const res = await api(`/investigations/${encodeURIComponent(id)}`);
      expect(res.status, id).toBe(404);
    }
    expect((await api(`/investigations/${first.id}`)).status).toBe(200);
  });
});
