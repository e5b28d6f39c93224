import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { amFixture } from '../../../helpers/fixtures.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { startTestService, type TestService } from '../../../helpers/service.js';

// Issue 29: short ids (an id's first 8 or more characters) on every /api/investigations/:id route
// and on the dashboard's /investigations/:id pages; an ambiguous one lists the candidates.

let redis: TestRedis;
let svc: TestService;
let admin: Redis;
let id: string;
let sibling: string;

const api = (path: string, method = 'GET') => fetch(`${svc.base}/api/investigations${path}`, { method });

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
  // No LLM: the investigation stays queued, so it can be cancelled through a short id.
  svc = await startTestService(redis.url, {});
  const res = await fetch(`${svc.base}/webhooks/alertmanager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(amFixture('group-next').body),
  });
  id = ((await res.json()) as { queued: string[] }).queued[0]!;
  // Another record whose id shares the first 8 characters (and differs at the 10th).
  sibling = `${id.slice(0, 9)}${id[9] === 'f' ? 'e' : 'f'}${id.slice(10)}`;
  await admin.hset(keys.investigation(sibling), 'id', sibling, 'status', 'completed', 'title', 'sibling');
  await admin.zadd(keys.index(), Date.now(), sibling);
});
afterAll(async () => {
  admin?.disconnect();
  await svc?.close();
  await redis?.stop();
});

describe('short ids on the API', () => {
  it('answers for the first characters of an id as for the id, on every route', async () => {
    const long = id.slice(0, 12);
    const res = await api(`/${long}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }).id).toBe(id);
    expect(((await (await api(`/${id}-rerun-2`)).json()) as { id: string }).id).toBe(id);
    // The route below sees the whole id: its own 404, not the reference's.
    const output = await api(`/${long}/outputs/call-1`);
    expect([output.status, await output.json()]).toEqual([404, { error: 'no kept output for tool call call-1' }]);
    const cancelled = await api(`/${long}/cancel`, 'POST');
    expect([cancelled.status, await cancelled.json()]).toEqual([
      200,
      { status: 'cancelled', phase: 'investigation', previous: 'queued' },
    ]);
  });

  it('answers 409 with the candidates for an ambiguous prefix, on reads and actions alike', async () => {
    const candidates = [id, sibling].sort();
    for (const [path, method] of [
      [`/${id.slice(0, 8)}`, 'GET'],
      [`/${id.slice(0, 9).toUpperCase()}/rerun`, 'POST'],
    ] as const) {
      const res = await api(path, method);
      expect(res.status, path).toBe(409);
      const body = (await res.json()) as { error: string; candidates: string[] };
      expect(body.candidates).toEqual(candidates);
      expect(body.error).toContain(`(${candidates.join(', ')}): give more of its characters`);
    }
  });

  it('answers 404 naming what an id is for fewer than 8 characters or anything not hex', async () => {
    for (const ref of [id.slice(0, 7), 'zzzzzzzz', 'x'.repeat(300)]) {
      const res = await api(`/${ref}`);
      expect(res.status, ref).toBe(404);
      expect(((await res.json()) as { error: string }).error).toMatch(/UUID or its first 8 or more characters/);
    }
    const none = await api('/00000000');
    expect(await none.json()).toEqual({
      error: "no investigation 00000000: no investigation's id starts with 00000000",
    });
    // The list itself is no id.
    expect((await api('?limit=1')).status).toBe(200);
  });
});

describe('short ids on the dashboard', () => {
  it('redirects a unique prefix to the whole id, lists the candidates of an ambiguous one', async () => {
    const one = await fetch(`${svc.base}/investigations/${id.slice(0, 12)}`, { redirect: 'manual' });
    expect([one.status, one.headers.get('location')]).toEqual([302, `/investigations/${id}`]);
    const many = await fetch(`${svc.base}/investigations/${id.slice(0, 8)}`);
    expect(many.status).toBe(409);
    const html = await many.text();
    for (const c of [id, sibling]) expect(html).toContain(`<a href="/investigations/${c}"><code>${c}</code></a>`);
    const none = await fetch(`${svc.base}/investigations/${id.slice(0, 7)}`);
    expect(none.status).toBe(404);
    expect(await none.text()).toContain('its first 8 or more characters');
  });

  it('shows each id short in the list, linking to the whole one', async () => {
    const html = await (await fetch(`${svc.base}/`)).text();
    expect(html).toContain(`<a href="/investigations/${id}" title="${id}"><code>${id.slice(0, 8)}</code></a>`);
  });
});
