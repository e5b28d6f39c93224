import { Redis } from 'ioredis';
import { LestradeError } from '../errors.js';
import { redactUrl } from '../redact.js';

export { redactUrl } from '../redact.js';

/**
 * For request paths (webhooks, API): fail fast when Redis is down so the caller gets a 5xx
 * and retries, instead of a request that hangs on an offline queue.
 */
export function createFastFailRedis(url: string): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 5_000,
    connectTimeout: 5_000,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
}

/** For BullMQ workers: block and reconnect forever, as BullMQ requires. */
export function createWorkerRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(times * 500, 5_000) });
}

/** Resolves once the connection is ready, or rejects after timeoutMs. */
export async function waitReady(redis: Redis, url: string, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new LestradeError(`Redis at ${redactUrl(url)} did not answer within ${timeoutMs / 1000} s; check REDIS_URL`));
    }, timeoutMs);
    const onReady = () => { cleanup(); resolve(); };
    const cleanup = () => { clearTimeout(timer); redis.off('ready', onReady); };
    redis.on('ready', onReady);
  });
}
