import { lookup } from 'node:dns';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/errors.js';
import { createFastFailRedis, createWorkerRedis, type RedisClient } from '../../../../src/redis/redis-connections.js';
import { freePort } from '../../../helpers/free-port.js';

// The clients each URL and TLS setting gives, read from their options (nothing listens on the port).

let dir: string;
let port: number;
const clients: RedisClient[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lestrade-conn-'));
  for (const name of ['ca.pem', 'cert.pem', 'key.pem']) writeFileSync(join(dir, name), `contents of ${name}`);
  port = await freePort();
});
afterAll(() => {
  for (const c of clients) c.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

function made(client: RedisClient): RedisClient {
  client.on('error', () => {});
  clients.push(client);
  return client;
}
const single = (c: RedisClient): RedisOptions => {
  expect(c).toBeInstanceOf(Redis);
  return (c as Redis).options;
};
const cluster = (c: RedisClient): ClusterOptions & { redisOptions: RedisOptions } => {
  expect(c).toBeInstanceOf(Cluster);
  return (c as Cluster).options as ClusterOptions & { redisOptions: RedisOptions };
};

describe('a Redis Cluster URL', () => {
  it('on request paths, gives a cluster client failing fast, with the credentials on every node', () => {
    const c = made(createFastFailRedis(`redis+cluster://app:s3cret@127.0.0.1:${port}`));
    expect((c as unknown as { startupNodes: unknown }).startupNodes).toEqual([{ host: '127.0.0.1', port }]);
    const o = cluster(c);
    expect(o.enableOfflineQueue).toBe(false);
    expect(o.redisOptions).toMatchObject({
      maxRetriesPerRequest: 1,
      commandTimeout: 5_000,
      connectTimeout: 5_000,
      username: 'app',
      password: 's3cret',
    });
    expect(o.redisOptions.tls).toBeUndefined();
    expect([1, 5, 10, 100].map((n) => o.clusterRetryStrategy!(n))).toEqual([200, 1_000, 2_000, 2_000]);
    // Without TLS, addresses are resolved as usual.
    expect(o.dnsLookup).toBe(lookup);
  });

  it('for workers, gives a cluster client that queues commands and blocks while Redis is away', () => {
    const o = cluster(made(createWorkerRedis(`redis+cluster://127.0.0.1:${port}`)));
    expect(o.enableOfflineQueue).toBe(true);
    expect(o.redisOptions.maxRetriesPerRequest).toBeNull();
    expect([1, 5, 10, 100].map((n) => o.clusterRetryStrategy!(n))).toEqual([500, 2_500, 5_000, 5_000]);
  });

  it('over TLS, keeps the configured host names for the certificates', async () => {
    const o = cluster(made(createWorkerRedis(`rediss+cluster://127.0.0.1:${port}`)));
    expect(o.redisOptions.tls).toEqual({});
    const resolved = await new Promise((resolve) =>
      o.dnsLookup!('redis.example.internal', (_err, address) => resolve(address)),
    );
    expect(resolved).toBe('redis.example.internal');
  });
});

describe('TLS settings', () => {
  it('are none for redis:// without a CA or certificate, and the system CAs for rediss://', () => {
    expect(single(made(createFastFailRedis(`redis://127.0.0.1:${port}`))).tls).toBeUndefined();
    expect(
      single(
        made(
          createFastFailRedis(`redis://127.0.0.1:${port}`, {
            keyFile: join(dir, 'key.pem'),
            rejectUnauthorized: false,
          }),
        ),
      ).tls,
    ).toBeUndefined();
    expect(single(made(createWorkerRedis(`rediss://127.0.0.1:${port}`))).tls).toEqual({});
    expect(single(made(createWorkerRedis(`rediss://127.0.0.1:${port}`, { rejectUnauthorized: true }))).tls).toEqual({});
  });

  it('read the CA, certificate and key files, and turn on TLS when a CA or certificate is given', () => {
    const withCa = single(made(createFastFailRedis(`redis://127.0.0.1:${port}`, { caFile: join(dir, 'ca.pem') }))).tls!;
    expect(String(withCa.ca)).toBe('contents of ca.pem');
    const full = single(
      made(
        createFastFailRedis(`redis://127.0.0.1:${port}`, {
          certFile: join(dir, 'cert.pem'),
          keyFile: join(dir, 'key.pem'),
          rejectUnauthorized: false,
        }),
      ),
    ).tls!;
    expect({
      ca: full.ca,
      cert: String(full.cert),
      // eslint-disable-next-line @typescript-eslint/no-base-to-string -- key is the PEM text or its Buffer here
      key: String(full.key),
      rejectUnauthorized: full.rejectUnauthorized,
    }).toEqual({ ca: undefined, cert: 'contents of cert.pem', key: 'contents of key.pem', rejectUnauthorized: false });
  });

  it('name the setting and the file that cannot be read', () => {
    for (const key of ['caFile', 'certFile', 'keyFile'] as const) {
      const missing = join(dir, `missing-${key}`);
      const settings = { caFile: join(dir, 'ca.pem'), [key]: missing };
      expect(() => createWorkerRedis(`rediss://127.0.0.1:${port}`, settings)).toThrow(ConfigError);
      expect(() => createWorkerRedis(`rediss://127.0.0.1:${port}`, settings)).toThrow(
        new RegExp(`^redis\\.tls\\.${key}: cannot read ${missing}: ENOENT`),
      );
    }
  });
});
