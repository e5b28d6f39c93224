import { describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { SessionStore } from '../../../../src/dashboard/sessions.js';
import { redisClient } from '../../../helpers/redis-client.js';

const r = redisClient();

describe('dashboard sessions in Redis', () => {
  it('stores a random id under its digest with a TTL, never the id itself', async () => {
    const sessions = new SessionStore(r.client, 120);
    const { id, session } = await sessions.create();
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await sessions.get(id)).toEqual(session);
    const stored = await r.client.keys('*');
    expect(stored).toEqual([keys.session(id)]);
    expect(stored[0]).not.toContain(id);
    const ttl = await r.client.ttl(keys.session(id));
    expect(ttl).toBeGreaterThan(100);
    expect(ttl).toBeLessThanOrEqual(120);
    expect(session.csrf.length).toBeGreaterThanOrEqual(32);
    expect((await sessions.create()).id).not.toBe(id);
  });

  it('knows no malformed, unknown or destroyed id', async () => {
    const sessions = new SessionStore(r.client, 120);
    const { id } = await sessions.create();
    expect(await sessions.get(undefined)).toBeNull();
    expect(await sessions.get('short')).toBeNull();
    expect(await sessions.get('A'.repeat(43))).toBeNull();
    await sessions.destroy(id);
    expect(await sessions.get(id)).toBeNull();
  });
});
