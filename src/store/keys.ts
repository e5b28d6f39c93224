import crypto, { createHash } from 'node:crypto';
import { isWellFormed } from '../text.js';
import { losslessBytes } from './lossless.js';

/**
 * Every key carries a hash tag, so on a Redis Cluster the keys that scripts use together live in
 * one slot: `{lestrade}` for records, identities, indexes and (through QUEUE_PREFIX) BullMQ's
 * queues; checkpoints, the bulk of the data, are spread over the cluster by investigation id.
 */
export const HASH_TAG = '{lestrade}';
const P = HASH_TAG;

/** Every Redis key Lestrade writes, in one place. */
export const keys = {
  investigation: (id: string) => `${P}:inv:${id}`,
  // The first {…} of a key is its hash tag: this one is the id, not {lestrade}.
  checkpoint: (id: string) => `lestrade:checkpoint:{${id}}`,
  /** Investigations of other sources that linked to this one instead of running the LLM again. */
  linkedFrom: (id: string) => `${P}:inv:${id}:linkedFrom`,
  /** The calls of a paused run and the decisions made on them (scripts use it with the record: same slot). */
  approvals: (id: string) => `${P}:inv:${id}:approvals`,
  /** A tool output too large to send the model whole, kept for the API: spread over the cluster by id. */
  output: (id: string, toolCallId: string) => `lestrade:output:{${id}}:${digest(toolCallId)}`,
  /** Cancel requests, published to every worker process. */
  cancelChannel: () => `${P}:cancel`,
  index: () => `${P}:invs`,
  dedup: (source: string, identity: string) => `${P}:dedup:${source}:${digest(identity)}`,
  /** The latest investigation of a fingerprint, for resolutions that carry a different identity. */
  latest: (source: string, fingerprint: string) => `${P}:latest:${source}:${digest(fingerprint)}`,
  /** The latest investigation of a group of issues investigated together (an Alertmanager group). */
  group: (source: string, groupKey: string) => `${P}:group:${source}:${digest(groupKey)}`,
  /** Claimed investigations whose BullMQ job is still to be added (see job-dispatcher.ts). */
  dispatch: () => `${P}:dispatch`,
  /** A vendor's webhook delivery id already handled. */
  delivery: (source: string, deliveryId: string) => `${P}:delivery:${source}:${digest(deliveryId)}`,
  /** Our comment on one issue (id, url, which investigation wrote it): the write-back's first lookup. */
  writtenComment: (source: string, locatorKey: string) => `${P}:written:${source}:${digest(locatorKey)}`,
  /** A write-back's resume token (a vendor request still processing), for whichever process tries next. */
  writeResume: (source: string, locatorKey: string) => `${P}:writeresume:${source}:${digest(locatorKey)}`,
  /** Held while one write-back to an issue runs, so two never race to create a comment. */
  writeLock: (source: string, locatorKey: string) => `${P}:writelock:${source}:${digest(locatorKey)}`,
  /** A poller's cursor (e.g. updated-since). */
  pollCursor: (pollerId: string) => `${P}:poll:${digest(pollerId)}`,
};

/** Investigation ids are crypto.randomUUID()s; anything else names no investigation (and no other key). */
export function isInvestigationId(id: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(id);
}

/** crypto.hash (Node 20.12+): one call, no Hash object; createHash on older Nodes. Same digest either way. */
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Buffer, encoding: 'hex') => string }).hash;

function digest(text: string): string {
  // Two identities differing only in lone surrogates must not share a key (UTF-8 would merge them):
  // well-formed text is hashed as its UTF-8, anything else as losslessBytes.
  const data = isWellFormed(text) ? text : losslessBytes(text);
  return (oneShot ? oneShot('sha256', data, 'hex') : createHash('sha256').update(data).digest('hex')).slice(0, 32);
}
