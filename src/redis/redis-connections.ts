import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsOptions } from 'node:tls';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { ConfigError, LestradeError } from '../errors.js';
import { redactUrl } from '../redact.js';
import { parseRedisUrl } from './redis-url.js';
import { bindKeys } from './keys.js';

export { redactUrl } from '../redact.js';

/** One Redis server or a Redis Cluster: BullMQ and the store take either. */
export type RedisClient = Redis | Cluster;

/** TLS settings beyond rediss:// itself (which verifies against the system's CAs). */
export interface RedisTlsSettings {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  rejectUnauthorized?: boolean;
}

/**
 * For request paths (webhooks, API): fail fast when Redis is down so the caller gets a 5xx
 * and retries, instead of a request that hangs on an offline queue.
 */
export function createFastFailRedis(url: string, tls?: RedisTlsSettings, prefix?: string): RedisClient {
  return connect(url, tls, prefix, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 5_000,
    connectTimeout: 5_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
}

/** For BullMQ workers: block and reconnect forever, as BullMQ requires. */
export function createWorkerRedis(url: string, tls?: RedisTlsSettings, prefix?: string): RedisClient {
  return connect(url, tls, prefix, {
    maxRetriesPerRequest: null,
    retryStrategy: (times) => Math.min(times * 500, 5_000),
  });
}

/** A connection bound to its key namespace (`redis.prefix`, see keys.ts). */
function connect(
  url: string,
  settings: RedisTlsSettings | undefined,
  prefix: string | undefined,
  opts: RedisOptions,
): RedisClient {
  return bindKeys(open(url, settings, opts), prefix);
}

function open(url: string, settings: RedisTlsSettings | undefined, opts: RedisOptions): RedisClient {
  const target = parseRedisUrl(url);
  const tls = target.tls || settings?.caFile || settings?.certFile ? tlsOptions(settings) : undefined;
  if (target.kind === 'single') return new Redis(url, { ...opts, ...(tls ? { tls } : {}) });
  const { enableOfflineQueue, retryStrategy, ...perNode } = opts;
  const cluster: ClusterOptions = {
    redisOptions: { ...perNode, username: target.username, password: target.password, ...(tls ? { tls } : {}) },
    enableOfflineQueue: enableOfflineQueue ?? true,
    clusterRetryStrategy: (times) => retryStrategy?.(times) ?? 1_000,
    // Certificates name the host as configured; managed services answer CLUSTER SLOTS with
    // addresses, so keep the configured name for TLS.
    ...(tls ? { dnsLookup: (address: string, done: (err: null, a: string) => void) => done(null, address) } : {}),
  };
  return new Cluster(target.nodes, cluster);
}

function tlsOptions(s: RedisTlsSettings | undefined): TlsOptions {
  const read = (key: string, path: string | undefined) => {
    if (!path) return undefined;
    try {
      return readFileSync(path);
    } catch (err) {
      throw new ConfigError(`redis.tls.${key}: cannot read ${path}: ${(err as Error).message}`);
    }
  };
  const ca = read('caFile', s?.caFile);
  const cert = read('certFile', s?.certFile);
  const key = read('keyFile', s?.keyFile);
  return {
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    ...(s?.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
  };
}

/** Resolves once the connection is ready, or rejects after timeoutMs. */
export async function waitReady(redis: RedisClient, url: string, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(
        new LestradeError(`Redis at ${redactUrl(url)} did not answer within ${timeoutMs / 1000} s; check REDIS_URL`),
      );
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}
