import type { LlmProbe } from '../llm/llm-probe.js';
import type { WaitingStats } from '../queue/intake-queue.js';
import type { RedisClient } from '../redis/redis-connections.js';

export interface ReadinessDeps {
  redis: RedisClient;
  llmConfigured: boolean;
  /** Whether the LLM endpoint answers (cached); without one, a configured LLM counts as answering. */
  llmProbe?: LlmProbe;
  waitingStats: () => Promise<WaitingStats>;
}

/** What serve's and the worker's /readyz both check: Redis answers, the LLM answers; the queue reported. */
export interface CoreChecks {
  redis: string;
  llm: string;
  queue: WaitingStats | null;
}

/**
 * Redis's ping and the LLM probe, each "ok" or why not, and the shared queue's waiting work.
 * `unconfigured` says what an absent LLM means for this process, given how much work waits.
 */
export async function coreChecks(
  deps: ReadinessDeps,
  unconfigured: (waiting: number | undefined) => string,
): Promise<CoreChecks> {
  const redis = await deps.redis.ping().then(
    () => 'ok',
    (err: Error) => `unreachable: ${err.message}`,
  );
  // The queue's numbers only inform: readiness is Redis's ping, which reports its own failure above.
  const queue = await deps.waitingStats().catch(() => null);
  const llm = deps.llmConfigured ? await (deps.llmProbe?.check() ?? 'ok') : unconfigured(queue?.waiting);
  return { redis, llm, queue };
}
