import { describe, expect, it } from 'vitest';
import { withLock } from '../../../../src/redis/with-lock.js';
import { redisClient } from '../../../helpers/redis-client.js';

const r = redisClient();
const busy = () => 'busy' as const;

describe('withLock', () => {
  it('runs fn holding the key for ttlMs, returns its value, and releases the key', async () => {
    let seen: { value: string | null; ttl: number } | null = null;
    const out = await withLock(
      r.client,
      'l',
      60_000,
      async () => {
        seen = { value: await r.client.get('l'), ttl: await r.client.pttl('l') };
        return 42;
      },
      busy,
    );
    expect(out).toBe(42);
    expect(seen!.value).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen!.ttl).toBeGreaterThan(50_000);
    expect(seen!.ttl).toBeLessThanOrEqual(60_000);
    expect(await r.client.exists('l')).toBe(0);
  });

  it('answers busy without running fn while another holds the key, and leaves their lock alone', async () => {
    await r.client.set('l', 'theirs', 'PX', 60_000);
    let ran = false;
    const out = await withLock(
      r.client,
      'l',
      1_000,
      async () => {
        ran = true;
      },
      busy,
    );
    expect(out).toBe('busy');
    expect(ran).toBe(false);
    expect(await r.client.get('l')).toBe('theirs');
  });

  it('throws what busy throws', async () => {
    await r.client.set('l', 'theirs');
    const refuse = () => {
      throw new Error('held elsewhere');
    };
    await expect(withLock(r.client, 'l', 1_000, async () => 1, refuse)).rejects.toThrow('held elsewhere');
  });

  it("releases the key when fn throws, and fn's error is what the caller sees", async () => {
    const failing = withLock(
      r.client,
      'l',
      60_000,
      async () => {
        throw new Error('vendor down');
      },
      busy,
    );
    await expect(failing).rejects.toThrow('vendor down');
    expect(await r.client.exists('l')).toBe(0);
  });

  it('never deletes a lock that expired under fn and was taken by another holder', async () => {
    await withLock(
      r.client,
      'l',
      60_000,
      async () => {
        // Our lock expired meanwhile and another holder took the key.
        await r.client.set('l', 'next holder', 'PX', 60_000);
      },
      busy,
    );
    expect(await r.client.get('l')).toBe('next holder');
  });
});
