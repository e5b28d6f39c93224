import type { RedisClient } from '../redis/redis-connections.js';
import type { Logger } from '../log.js';
import { InterruptedError } from '../errors.js';
import { keysOf } from '../redis/keys.js';

/**
 * Reaches the worker running an investigation, in whatever process: a cancel is published on one
 * channel; each worker process aborts its runs of that id (the LLM request and the running tools
 * see the signal). The worker also checks the record between steps, so a missed message only
 * delays the stop to the next step.
 */
export class CancelSignals {
  private readonly running = new Map<string, Set<AbortController>>();

  private constructor(private readonly subscriber: RedisClient) {}

  /** Subscribes on its own connection (a subscribed connection can do nothing else). */
  static async start(subscriber: RedisClient, log: Logger): Promise<CancelSignals> {
    const signals = new CancelSignals(subscriber);
    subscriber.on('message', (_channel: string, id: string) => signals.abort(id));
    subscriber.on('error', (err: Error) => log.warn({ err: err.message }, 'cancel channel connection error'));
    await subscriber.subscribe(keysOf(subscriber).cancelChannel());
    return signals;
  }

  static publish(redis: RedisClient, id: string): Promise<number> {
    return redis.publish(keysOf(redis).cancelChannel(), id);
  }

  /** A controller for one run of `id`; release it when the run ends. */
  register(id: string): AbortController {
    const controller = new AbortController();
    const set = this.running.get(id) ?? new Set();
    set.add(controller);
    this.running.set(id, set);
    return controller;
  }

  release(id: string, controller: AbortController): void {
    const set = this.running.get(id);
    set?.delete(controller);
    if (set?.size === 0) this.running.delete(id);
  }

  abort(id: string): void {
    for (const c of this.running.get(id) ?? []) c.abort(new Error('investigation cancelled'));
  }

  /** How many runs this process has in progress. */
  get inProgress(): number {
    let n = 0;
    for (const set of this.running.values()) n += set.size;
    return n;
  }

  /**
   * Shutdown: stops every run of this process where it is (the LLM request and the running tools see the
   * signal); each job handler sees an InterruptedError as the reason and hands its job back. How many.
   */
  interruptAll(): number {
    const n = this.inProgress;
    for (const set of this.running.values())
      for (const c of set) c.abort(new InterruptedError('the process is shutting down'));
    return n;
  }

  async close(): Promise<void> {
    this.subscriber.disconnect();
  }
}
