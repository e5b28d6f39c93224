import type { Config } from '../config/schema.js';
import { DeliveryQueue, type DeliveryTargets } from '../delivery/delivery-queue.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { Intake } from '../queue/intake-queue.js';
import type { Lifecycle } from './lifecycle.js';

/**
 * The delivery queue: a completed investigation is written back to its source (when the source has a writer) and
 * delivered to the routed destinations; intake's linked and resolved hooks feed it too.
 */
export function wireDeliveries(
  redis: RedisClient,
  config: Config,
  { store, intake }: { store: InvestigationStore; intake: Intake },
  targets: DeliveryTargets,
  lifecycle: Lifecycle,
): DeliveryQueue {
  const deliveries = new DeliveryQueue(redis, store, targets, {
    ...config.writeBack,
    retentionSeconds: config.queue.retentionSeconds,
  });
  intake.onLinked = async (id) => {
    const inv = await store.get(id);
    if (inv) await deliveries.completed(inv);
  };
  intake.onResolved = async (id) => {
    const inv = await store.get(id);
    if (inv) await deliveries.resolved(inv);
  };
  lifecycle.onClose(() => deliveries.close());
  return deliveries;
}
