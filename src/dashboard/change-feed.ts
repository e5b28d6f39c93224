import type { RedisClient } from '../redis/redis-connections.js';
import type { Logger } from '../log.js';
import { keysOf } from '../redis/keys.js';

export type ChangeListener = (id: string) => void;

/**
 * The ids of changed investigation records, as every process's store publishes them (see
 * src/store/record-changes.ts), handed to the dashboard's open event streams in this process.
 */
export class ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();

  private constructor(private readonly subscriber: RedisClient) {}

  /** Subscribes on its own connection (a subscribed connection can do nothing else). */
  static async start(subscriber: RedisClient, log: Logger): Promise<ChangeFeed> {
    const feed = new ChangeFeed(subscriber);
    subscriber.on('message', (_channel: string, id: string) => {
      for (const l of feed.listeners) l(id);
    });
    subscriber.on('error', (err: Error) => log.warn({ err: err.message }, 'change feed connection error'));
    await subscriber.subscribe(keysOf(subscriber).changesChannel());
    return feed;
  }

  /** Calls `listener` with each changed id until the returned function is called. */
  listen(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  get size(): number {
    return this.listeners.size;
  }

  close(): void {
    this.listeners.clear();
    this.subscriber.disconnect();
  }
}
