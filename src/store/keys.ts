import { createHash } from 'node:crypto';

/** Every Redis key Lestrade writes, in one place. */
export const keys = {
  investigation: (id: string) => `lestrade:inv:${id}`,
  checkpoint: (id: string) => `lestrade:inv:${id}:checkpoint`,
  index: () => 'lestrade:invs',
  dedup: (source: string, identity: string) => `lestrade:dedup:${source}:${digest(identity)}`,
  /** The latest investigation of a fingerprint, for resolutions that carry a different identity. */
  latest: (source: string, fingerprint: string) => `lestrade:latest:${source}:${digest(fingerprint)}`,
  /** A vendor's webhook delivery id already handled. */
  delivery: (source: string, deliveryId: string) => `lestrade:delivery:${source}:${digest(deliveryId)}`,
  /** Our comment on one issue (id, url, which investigation wrote it): the write-back's first lookup. */
  writtenComment: (source: string, locatorKey: string) => `lestrade:written:${source}:${digest(locatorKey)}`,
  /** Held while one write-back to an issue runs, so two never race to create a comment. */
  writeLock: (source: string, locatorKey: string) => `lestrade:writelock:${source}:${digest(locatorKey)}`,
  /** A poller's cursor (e.g. updated-since). */
  pollCursor: (pollerId: string) => `lestrade:poll:${digest(pollerId)}`,
};

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
