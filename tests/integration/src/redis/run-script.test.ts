import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RedisScript } from '../../../../src/redis/run-script.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';

// Scripts go by their SHA1, in full only when Redis does not know them (a restart, SCRIPT FLUSH).

let redis: TestRedis;
let client: Redis;

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
});
afterAll(async () => {
  client.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await client.flushall();
  await client.script('FLUSH');
});

describe('RedisScript', () => {
  it('runs a script Redis has never seen, then by its SHA1 alone', async () => {
    const script = new RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])");
    expect(await script.run(client, ['n'], [2])).toBe(2);
    expect(await script.run(client, ['n'], [3])).toBe(5);
    await client.script('FLUSH');
    expect(await script.run(client, ['n'], [1])).toBe(6);
  });

  it('is known to Redis by the SHA1 of its text after its first run', async () => {
    const lua = "return 'hello'";
    await new RedisScript(lua).run(client, [], []);
    const { createHash } = await import('node:crypto');
    expect(await client.script('EXISTS', createHash('sha1').update(lua).digest('hex'))).toEqual([1]);
  });

  it('runs a script that fails once, passing its error on', async () => {
    const script = new RedisScript("redis.call('INCR', KEYS[1]); return redis.error_reply('boom')");
    await expect(script.run(client, ['tries'], [])).rejects.toThrow('boom');
    await expect(script.run(client, ['tries'], [])).rejects.toThrow('boom');
    expect(await client.get('tries')).toBe('2');
  });
});
