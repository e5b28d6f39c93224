import crypto, { createHash } from 'node:crypto';
import { isWellFormed } from '../text.js';
import { losslessBytes } from './lossless.js';

/** The namespace of every key when none is configured (`redis.prefix`). */
export const DEFAULT_PREFIX = 'lestrade';
/** What a prefix may be: it becomes part of every key and of BullMQ's queue names. */
export const PREFIX_PATTERN = /^[A-Za-z0-9_.-]{1,40}$/;

/**
 * Every key carries a hash tag, so on a Redis Cluster the keys that scripts use together live in
 * one slot: `{<prefix>}` for records, identities, indexes and BullMQ's queues; checkpoints, the
 * bulk of the data, are spread over the cluster by investigation id. The prefix (`redis.prefix`,
 * `lestrade` by default) lets several deployments, or several tests, share one Redis.
 */
export function createKeys(prefix: string = DEFAULT_PREFIX) {
  if (!PREFIX_PATTERN.test(prefix)) throw new Error(`redis prefix "${prefix}" must match ${PREFIX_PATTERN}`);
  const P = `{${prefix}}`;
  return {
    prefix,
    /** The hash tag every key of this namespace (but checkpoints and outputs) starts with. */
    tag: P,
    /** BullMQ's prefix: its queues live in the same slot as the records its scripts read. */
    queuePrefix: `${P}:bull`,
    investigation: (id: string) => `${P}:inv:${id}`,
    // The first {…} of a key is its hash tag: this one is the id, not the prefix.
    checkpoint: (id: string) => `${prefix}:checkpoint:{${id}}`,
    /** Investigations of other sources that linked to this one instead of running the LLM again. */
    linkedFrom: (id: string) => `${P}:inv:${id}:linkedFrom`,
    /** The calls of a paused run and the decisions made on them (scripts use it with the record: same slot). */
    approvals: (id: string) => `${P}:inv:${id}:approvals`,
    /** People's verdicts on the RCA (feedback-store.ts): field `<via>:<user>` → entry; expires with the record. */
    feedback: (id: string) => `${P}:inv:${id}:feedback`,
    /** Approved calls started and finished (at most once: loop/approvals.ts), kept as long as the record. */
    appliedCalls: (id: string) => `${P}:inv:${id}:applied`,
    /** The investigation's remediations (store/remediation-log.ts): field applied-call id → entry; expires with the record. */
    remediation: (id: string) => `${P}:inv:${id}:remediation`,
    /** Held while a remediation of one workload is pending, applying or being verified: its holder (store/remediation-log.ts). */
    remediationInFlight: (kind: string, namespace: string, name: string) =>
      `${P}:remediation:inflight:${[kind, namespace, name].map(encodeURIComponent).join('/')}`,
    /** The remediations applied on one UTC day (YYYY-MM-DD), a set of applied-call ids: maxActionsPerDay. */
    remediationDay: (date: string) => `${P}:remediation:day:${date}`,
    /** A tool output too large to send the model whole, kept for the API: spread over the cluster by id. */
    output: (id: string, toolCallId: string) => `${prefix}:output:{${id}}:${digest(toolCallId)}`,
    /** Cancel requests, published to every worker process. */
    cancelChannel: () => `${P}:cancel`,
    /** Investigation ids whose record changed, published for the dashboard's live updates in every process. */
    changesChannel: () => `${P}:changes`,
    /** A dashboard session (random id, never the API token), with its CSRF token. */
    session: (id: string) => `${P}:session:${digest(id)}`,
    /** Failed dashboard sign-ins from one client address in the current window. */
    signInFailures: (address: string) => `${P}:signin-failures:${digest(address)}`,
    index: () => `${P}:invs`,
    /** The same ids in lexical order (all scored 0), for short ids: see store/id-prefix.ts. */
    idIndex: () => `${P}:invs:ids`,
    dedup: (source: string, identity: string) => `${P}:dedup:${source}:${digest(identity)}`,
    /** The latest investigation of a fingerprint, for resolutions that carry a different identity. */
    latest: (source: string, fingerprint: string) => `${P}:latest:${source}:${digest(fingerprint)}`,
    /**
     * When a fingerprint (an alert, or a ticket's key) was claimed as a new investigation: a sorted set of
     * investigation ids scored by claim time (ms), read to tell whether a resolved issue recurred (store/firings.ts).
     */
    firings: (source: string, fingerprint: string) => `${P}:firings:${source}:${digest(fingerprint)}`,
    /** The latest investigation of a group of issues investigated together (an Alertmanager group). */
    group: (source: string, groupKey: string) => `${P}:group:${source}:${digest(groupKey)}`,
    /** Claimed investigations whose BullMQ job is still to be added (see job-dispatcher.ts). */
    dispatch: () => `${P}:dispatch`,
    /** A vendor's webhook delivery id already handled. */
    delivery: (source: string, deliveryId: string) => `${P}:delivery:${source}:${digest(deliveryId)}`,
    /** A deploy already told to the deploy listener (its DeployEvent id), so a repeat is one event. */
    deployEvent: (id: string) => `${P}:deploy:${digest(id)}`,
    /** Our comment on one issue (id, url, which investigation wrote it): the write-back's first lookup. */
    writtenComment: (source: string, locatorKey: string) => `${P}:written:${source}:${digest(locatorKey)}`,
    /** A write-back's resume token (a vendor request still processing), for whichever process tries next. */
    writeResume: (source: string, locatorKey: string) => `${P}:writeresume:${source}:${digest(locatorKey)}`,
    /** Held while one write-back to an issue runs, so two never race to create a comment. */
    writeLock: (source: string, locatorKey: string) => `${P}:writelock:${source}:${digest(locatorKey)}`,
    /** A destination's memory (a Slack message's ts, an idempotency key sent): see destination-memo.ts. */
    destinationMemo: (destination: string, key: string) => `${P}:dest:${destination}:${digest(key)}`,
    /** Held while one delivery to a destination's thread runs, so two never race to post its parent. */
    destinationLock: (destination: string, key: string) => `${P}:destlock:${destination}:${digest(key)}`,
    /** A poller's cursor (e.g. updated-since). */
    pollCursor: (pollerId: string) => `${P}:poll:${digest(pollerId)}`,
    /** Investigations started in a budget's window (see budget-guard.ts). */
    budgetStarts: (scope: string) => `${P}:budget:starts:${Buffer.from(scope).toString('base64url')}`,
    /** Token usage and cost of one day (see usage-ledger.ts). */
    usageDay: (date: string) => `${P}:usage:${date}`,
    /** The LLM rate limiter of one model, shared by every process (see src/llm/rate-limiter.ts): one slot. */
    llmLimit: (model: string) => `${P}:llmlimit:${digest(model)}`,
    /** One memory record (src/memory): kept memory.retentionDays, far longer than the investigation's record. */
    memoryRecord: (id: string) => `${P}:mem:rec:${id}`,
    /** Every memory record's id scored by when its investigation finished, for retention trimming. */
    memoryTimeline: () => `${P}:mem:all`,
    /** Memory records sharing one value of a kind (fingerprint, alert name and label, title word), scored by time. */
    memoryIndex: (kind: string, value: string) => `${P}:mem:ix:${kind}:${digest(value)}`,
    /** A health check's state (last status, consecutive count, notified status, paused): docs/checks.md. */
    checkState: (name: string) => `${P}:check:${name}`,
    /** A check's last runs, newest first (JSON entries), for the dashboard's strip. */
    checkHistory: (name: string) => `${P}:check:${name}:history`,
    /** The investigation of a check still running: the next tick waits (expires after the check's timeoutSeconds). */
    checkInFlight: (name: string) => `${P}:check:${name}:inflight`,
    /** Check runs started on one UTC day (checks.maxRunsPerDay). */
    checkRunsDay: (date: string) => `${P}:check-runs:${date}`,
    /** Stands in a script's key list where an item has no key of that kind. */
    placeholder: () => `${P}:none`,
  };
}

export type Keys = ReturnType<typeof createKeys>;

/** The keys of the default namespace. */
export const keys: Keys = createKeys();
export const HASH_TAG = keys.tag;

/**
 * The namespace is a property of the connection, as ioredis's own keyPrefix is (which BullMQ
 * refuses): the connection factories bind the configured prefix, and every store, queue and
 * script reads its keys from the connection it was given. Unbound connections use the default.
 */
const bound = new WeakMap<object, Keys>();

export function bindKeys<T extends object>(redis: T, prefix: string = DEFAULT_PREFIX): T {
  bound.set(redis, createKeys(prefix));
  return redis;
}

export function keysOf(redis: object): Keys {
  return bound.get(redis) ?? keys;
}

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
