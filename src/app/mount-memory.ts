import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import { MemoryStore } from '../memory/memory-store.js';
import { InvestigationMemory } from '../recall/investigation-memory.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';
import type { InvestigationStore } from '../store/investigation-store.js';

/**
 * Memory of past incidents for the service (docs/memory.md), or undefined with memory.enabled false: the
 * workers ask it before each fresh run and tell it each completed investigation, verdicts update it.
 */
export function mountMemory(
  redis: RedisClient,
  config: Pick<Config, 'memory'>,
  store: InvestigationStore,
  log: Pick<Logger, 'info'>,
): InvestigationMemory | undefined {
  const m = config.memory;
  if (!m.enabled) return undefined;
  const memory = new MemoryStore(redis, keysOf(redis), m);
  return new InvestigationMemory(
    memory,
    store,
    { identifyingLabels: m.identifyingLabels, reuseConfirmed: m.reuseConfirmed, reuseWithinHours: m.reuseWithinHours },
    log,
  );
}
