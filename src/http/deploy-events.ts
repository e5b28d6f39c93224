import { RetryableError } from '../errors.js';
import type { Logger } from '../log.js';
import type { DeployEvent, DeployListener } from '../records/deploy-event.js';
import { keysOf } from '../redis/keys.js';
import type { RedisClient } from '../redis/redis-connections.js';

/** Whether a deploy was new (told to the listener) or already seen. */
export type DeployReception = 'new' | 'duplicate';

/** How long a deploy's id is remembered: a sender's retries (and GitHub's redeliveries) fall within it. */
export const DEPLOY_ID_TTL_SECONDS = 24 * 3600;

/**
 * Tells each deploy to the listener once: its id is claimed with SET NX (with a TTL) first, so the same
 * deploy seen twice, by two processes at once or a sender's retry, is one event. A listener that fails
 * gives the claim back and the error goes to the sender (503), whose retry is then told again. With no
 * listener (no health checks run after deploys) the deploy is logged and taken.
 */
export function deployReceiver(
  redis: RedisClient,
  log: Logger,
  listener?: DeployListener,
  ttlSeconds = DEPLOY_ID_TTL_SECONDS,
): (event: DeployEvent) => Promise<DeployReception> {
  const keys = keysOf(redis);
  return async (event) => {
    const key = keys.deployEvent(event.id);
    if ((await redis.set(key, event.receivedAt, 'EX', ttlSeconds, 'NX')) !== 'OK') return 'duplicate';
    const fields = { deploy: event.id, service: event.service, version: event.version, source: event.source };
    if (!listener) {
      log.info(fields, 'deploy seen; nothing listens for deploys (no afterDeploy checks)');
      return 'new';
    }
    try {
      await listener(event);
    } catch (err) {
      await redis.del(key);
      // Worth the sender's retry (503), whatever the listener's error: the deploy is not taken.
      const message = err instanceof Error ? err.message : String(err);
      throw new RetryableError(`the deploy listener failed: ${message}`, { cause: err });
    }
    log.info(fields, 'deploy seen');
    return 'new';
  };
}
