import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAnswers, startLocalRedis, type LocalRedis } from '../../../cli/local-redis.js';
import { ConfigError } from '../../../src/errors.js';
import { createLogger } from '../../../src/log.js';
import { freePort } from '../../helpers/free-port.js';
import { startRedis, type TestRedis } from '../../helpers/redis-server.js';

// `lestrade serve` without REDIS_URL runs its own redis-server; on a later start it reuses the one
// it left running, recognised by its data folder, and refuses any other Redis on that port.

const log = createLogger('silent');
let foreign: TestRedis;

beforeAll(async () => {
  foreign = await startRedis();
});
afterAll(async () => {
  await foreign.stop();
});

describe('the local redis-server', () => {
  it('refuses a Redis on its port that is not its own, saying what to do', async () => {
    const ours = mkdtempSync(join(tmpdir(), 'lestrade-ours-'));
    const err = await startLocalRedis(ours, foreign.port, log).then(
      () => null,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err!.message).toContain(`a Redis that is not Lestrade's own answers on 127.0.0.1:${foreign.port}`);
    expect(err!.message).toContain(`ours is ${ours}`);
    expect(err!.message).toMatch(/its data folder is \/.*lestrade-redis-/);
    expect(err!.message).toMatch(/set REDIS_URL to use it, or LESTRADE_LOCAL_REDIS_PORT/);
    // Nothing was written to it.
    const probe = new Redis(foreign.url);
    expect(await probe.dbsize()).toBe(0);
    probe.disconnect();
  });

  it('refuses one that will not say where its data is (CONFIG refused)', async () => {
    const probe = new Redis(foreign.url);
    await probe.acl('SETUSER', 'default', 'on', 'nopass', '~*', '&*', '+@all', '-config');
    try {
      const err = await startLocalRedis(mkdtempSync(join(tmpdir(), 'lestrade-ours-')), foreign.port, log).then(
        () => null,
        (e: Error) => e,
      );
      expect(err).toBeInstanceOf(ConfigError);
      expect(err!.message).toContain('its data folder is unknown: CONFIG GET dir refused');
    } finally {
      await probe.acl('SETUSER', 'default', '+@all');
      probe.disconnect();
    }
  });

  it('starts its own, reuses it on the next start (even through a symlinked path), and stops it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-ours-'));
    const port = await freePort();
    const first: LocalRedis = await startLocalRedis(join(dir, 'data'), port, log);
    try {
      expect(first.url).toBe(`redis://127.0.0.1:${port}`);
      expect(await redisAnswers(first.url)).toBe(true);
      const link = join(mkdtempSync(join(tmpdir(), 'lestrade-link-')), 'data');
      symlinkSync(join(dir, 'data'), link);
      const second = await startLocalRedis(link, port, log);
      expect(second.url).toBe(first.url);
      await second.stop();
      expect(await redisAnswers(first.url)).toBe(true);
      const other = await startLocalRedis(join(dir, 'elsewhere'), port, log).then(
        () => null,
        (e: Error) => e,
      );
      expect(other).toBeInstanceOf(ConfigError);
    } finally {
      await first.stop();
    }
    expect(await redisAnswers(first.url)).toBe(false);
  });
});
