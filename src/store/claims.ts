import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';
import type { Redactor } from '../redact.js';
import { claimMany, type ClaimItem } from './claim-many.js';
import type { ClaimReply } from './claim-script.js';
import { encodeFields } from './record-fields.js';
import { MANY_CHANGED, publishChange } from './record-changes.js';

export interface StoreOptions {
  dedupTtlSeconds: number;
  retentionSeconds: number;
}

/** Issues' identities: claiming them (creating their records), finding them, and the links between sources. */
export class Claims {
  /** The namespace of the connection (see keys.ts). */
  private readonly keys;

  constructor(
    private readonly redis: RedisClient,
    private readonly opts: StoreOptions,
    private readonly redact: Redactor,
  ) {
    this.keys = keysOf(redis);
  }

  /** Claims and resolves every issue of a delivery in one atomic round trip (see claim-script.ts). */
  async claimMany(
    items: readonly ClaimItem[],
    now = new Date(),
  ): Promise<{ items: ClaimReply[]; undispatched: number }> {
    const claimed = await claimMany(
      this.redis,
      items,
      { ...this.opts, redact: this.redact, encode: (f) => encodeFields(this.redact, f) },
      now,
    );
    if (claimed.items.length > 0)
      await publishChange(this.redis, claimed.items.length === 1 ? claimed.items[0]!.id : MANY_CHANGED);
    return claimed;
  }

  /** The investigation ids of identities as their sources know them, null where none was claimed. */
  async lookup(refs: ReadonlyArray<{ source: string; identity: string }>): Promise<Array<string | null>> {
    if (refs.length === 0) return [];
    return this.redis.mget(...refs.map((r) => this.keys.dedup(r.source, r.identity)));
  }

  /** The latest investigation claimed under a fingerprint (an issue investigated again), or null. */
  async latest(source: string, fingerprint: string): Promise<string | null> {
    return this.redis.get(this.keys.latest(source, fingerprint));
  }

  /** Records, for each [id, fromId] pair in one round trip, that `fromId` (another source's issue) links to investigation `id`. */
  async addLinkedFromMany(pairs: ReadonlyArray<readonly [string, string]>): Promise<void> {
    if (pairs.length === 0) return;
    const tx = this.redis.multi();
    for (const [id, fromId] of pairs)
      tx.sadd(this.keys.linkedFrom(id), fromId).expire(this.keys.linkedFrom(id), this.opts.retentionSeconds);
    await tx.exec();
  }
}
