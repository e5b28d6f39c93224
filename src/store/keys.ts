import { createHash } from 'node:crypto';
import { losslessBytes } from './lossless.js';

/** Every Redis key Lestrade writes, in one place. */
export const keys = {
  investigation: (id: string) => `lestrade:inv:${id}`,
  checkpoint: (id: string) => `lestrade:inv:${id}:checkpoint`,
  /** Investigations of other sources that linked to this one instead of running the LLM again. */
  linkedFrom: (id: string) => `lestrade:inv:${id}:linkedFrom`,
  /** The calls of a paused run and the decisions made on them. */
  approvals: (id: string) => `lestrade:inv:${id}:approvals`,
  /** A tool output too large to send the model whole, kept for the API. */
  output: (id: string, toolCallId: string) => `lestrade:inv:${id}:output:${digest(toolCallId)}`,
  /** Cancel requests, published to every worker process. */
  cancelChannel: () => 'lestrade:cancel',
  index: () => 'lestrade:invs',
  dedup: (source: string, identity: string) => `lestrade:dedup:${source}:${digest(identity)}`,
  /** The latest investigation of a fingerprint, for resolutions that carry a different identity. */
  latest: (source: string, fingerprint: string) => `lestrade:latest:${source}:${digest(fingerprint)}`,
  /** A vendor's webhook delivery id already handled. */
  delivery: (source: string, deliveryId: string) => `lestrade:delivery:${source}:${digest(deliveryId)}`,
  /** Our comment on one issue (id, url, which investigation wrote it): the write-back's first lookup. */
  writtenComment: (source: string, locatorKey: string) => `lestrade:written:${source}:${digest(locatorKey)}`,
  /** A write-back's resume token (a vendor request still processing), for whichever process tries next. */
  writeResume: (source: string, locatorKey: string) => `lestrade:writeresume:${source}:${digest(locatorKey)}`,
  /** Held while one write-back to an issue runs, so two never race to create a comment. */
  writeLock: (source: string, locatorKey: string) => `lestrade:writelock:${source}:${digest(locatorKey)}`,
  /** A poller's cursor (e.g. updated-since). */
  pollCursor: (pollerId: string) => `lestrade:poll:${digest(pollerId)}`,
};

/** Investigation ids are crypto.randomUUID()s; anything else names no investigation (and no other key). */
export function isInvestigationId(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id);
}

function digest(text: string): string {
  // Two identities differing only in lone surrogates must not share a key (UTF-8 would merge them).
  return createHash('sha256').update(losslessBytes(text)).digest('hex').slice(0, 32);
}
