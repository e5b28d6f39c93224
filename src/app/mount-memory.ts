import type { Config } from '../config/schema.js';
import type { Logger } from '../log.js';
import { MemoryStore } from '../memory/memory-store.js';
import { InvestigationMemory } from '../recall/investigation-memory.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { FeedbackStore } from '../store/feedback-store.js';

/**
 * Memory of past incidents for the service (docs/memory.md), or undefined with memory.enabled false: the
 * workers ask it before each fresh run and tell it each completed investigation, verdicts update it.
 */
export function mountMemory(
  redis: RedisClient,
  config: Pick<Config, 'memory'>,
  store: InvestigationStore,
  feedback: FeedbackStore,
  log: Pick<Logger, 'info'>,
): InvestigationMemory | undefined {
  const m = config.memory;
  if (!m.enabled) return undefined;
  const memory = new MemoryStore(redis, keysOf(redis), m);
  const options = {
    identifyingLabels: m.identifyingLabels,
    reuseConfirmed: m.reuseConfirmed,
    reuseWithinHours: m.reuseWithinHours,
  };
  const recall = new InvestigationMemory(memory, store, options, log, feedback);
  // A verdict from any channel (API, dashboard, CLI, Slack, ticket comment) updates the memory it is about.
  feedback.onFeedback((id, entry) => recall.verdictGiven(id, entry));
  return recall;
}
