import { describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../../../../src/memory/memory-record.js';
import { MemoryStore } from '../../../../src/memory/memory-store.js';
import { keys } from '../../../../src/redis/keys.js';
import { deliverOne } from '../../../helpers/runtime.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { startTestService } from '../../../helpers/service.js';

const h = serviceHarness();
const TOKEN = 'memory-token-1';
const ID = '0a1b2c3d-0000-4000-8000-000000000001';

const rec = (investigationId: string): MemoryRecord => ({
  investigationId,
  source: 'alertmanager',
  fingerprint: 'fp1',
  alertName: 'HighErrorRate',
  labels: { namespace: 'payments', service: 'checkout' },
  title: 'HighErrorRate: checkout',
  rootCause: 'The pool ran dry.',
  rootCauseBy: 'rca',
  verdict: null,
  at: new Date().toISOString(),
});

const call = (path: string, method: string, token: string | null = TOKEN) =>
  fetch(`${h.svc!.base}/api/memory/${path}`, {
    method,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });

describe('GET and DELETE /api/memory/:id', () => {
  it('forgets a remembered investigation (204), then answers 404; the token is required', async () => {
    h.svc = await startTestService(h.redis.url, { LESTRADE_API_TOKEN: TOKEN });
    const memory = new MemoryStore(h.admin, keys, { retentionDays: 365, minScore: 0.75, maxSimilar: 3 });
    await memory.remember(rec(ID));

    expect((await call(ID, 'DELETE', null)).status).toBe(401);
    expect((await call(ID, 'DELETE', 'wrong')).status).toBe(401);
    expect(await memory.get(ID)).not.toBeNull();

    const got = await call(ID, 'GET');
    expect(got.status).toBe(200);
    expect(await got.json()).toMatchObject({ investigationId: ID, rootCause: 'The pool ran dry.' });

    const gone = await call(ID, 'DELETE');
    expect(gone.status).toBe(204);
    expect(await gone.text()).toBe('');
    expect(await memory.get(ID)).toBeNull();
    expect(await memory.findSimilar({ source: 'alertmanager', fingerprint: 'fp1', labels: {}, title: 'x' })).toEqual(
      [],
    );
    // Who forgot it: an unnamed LESTRADE_API_TOKEN is recorded as token-1.
    expect(h.svc.logs.some((l) => l.msg === 'memory forgotten' && l.id === ID && l.by === 'token-1')).toBe(true);

    const again = await call(ID, 'DELETE');
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ error: `nothing remembered of investigation ${ID}` });
    expect((await call(ID, 'GET')).status).toBe(404);
  });

  it('takes a short id while the investigation is kept; 404 for what names no investigation', async () => {
    h.svc = await startTestService(h.redis.url, {});
    const memory = new MemoryStore(h.admin, keys, { retentionDays: 365, minScore: 0.75, maxSimilar: 3 });
    const id = await deliverOne(h.svc.base);
    await memory.remember(rec(id));
    await memory.remember(rec(ID));
    expect((await call(id.slice(0, 8), 'DELETE', null)).status).toBe(204);
    expect(await memory.get(id)).toBeNull();
    expect(await memory.get(ID)).not.toBeNull();
    expect((await call('not-an-id', 'DELETE', null)).status).toBe(404);
    expect((await call('0a1b2c3d-0000-4000-8000-00000000000f', 'DELETE', null)).status).toBe(404);
    expect(await memory.get(ID)).not.toBeNull();
  });
});
