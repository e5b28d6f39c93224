import { PermanentError, RetryableError } from '../errors.js';
import { keysOf } from '../redis/keys.js';
import { withLock } from '../redis/with-lock.js';
import type { Investigation } from '../store/investigation.js';
import { commentFor } from './comment-for.js';
import { recordFor, type DeliveryDeps } from './delivery-deps.js';
import { recorder, recordFailure, saveRecord, type Recorder } from './delivery-record.js';
import type { RcaWriter } from '../registration/rca-writer.js';
import type { WriteBackRecord } from '../records/write-back-record.js';
import { WriteRefusedError, writeRca } from './write-rca.js';
import type { WriteBackOutcome } from '../observability/metrics.js';

/** What we remember of our comment on one issue: the first place a write-back looks. */
interface WrittenRef {
  id: string;
  url: string | null;
  investigationId: string;
  createdAt: string;
}

const LOCK_MS = 120_000;
const RESUME_TTL_SECONDS = 24 * 3600;

/**
 * One attempt at writing an investigation's RCA to its issue. Serialised per issue by a lock,
 * so two investigations of one issue never both create a comment; an older investigation never
 * overwrites a newer one's comment. Throws RetryableError to be tried again later.
 */
export async function runWriteBack(
  id: string,
  attempt: number,
  lastAttempt: boolean,
  deps: DeliveryDeps,
): Promise<WriteBackRecord['status'] | 'skipped' | 'waiting'> {
  const stored = await deps.store.get(id);
  const inv = stored && (await recordFor(deps, 'tickets', stored));
  const locator = inv?.issue.locator;
  if (!inv || !locator) return 'skipped';
  const current = inv.writeBacks.find((w) => !w.destination);
  if (current && current.status !== 'pending') return 'skipped';
  const answer = await answerOf(inv, deps);
  if (answer === 'waiting' || answer === null) return answer ?? 'skipped';
  const record = recorder({ target: locator.key }, attempt, current);
  const writer = deps.writers.get(inv.source);
  if (!writer || 'failure' in answer) {
    const error = 'failure' in answer ? answer.failure : `source ${inv.source} has no write-back configured`;
    await saveRecord(deps.store, id, record({ status: 'failed', error }));
    deps.metrics?.writeBack(inv.source, 'failed');
    return 'failed';
  }
  const busy = () => {
    throw new RetryableError(`another write-back to ${locator.key} is running`, { retryAfterMs: 2_000 });
  };
  // Serialised per issue: a lock not released expires (LOCK_MS) and only delays a retry.
  return withLock(
    deps.redis,
    keysOf(deps.redis).writeLock(inv.source, locator.key),
    LOCK_MS,
    async () => {
      try {
        const written = await writeUnderLock(inv, answer, writer, attempt, record, deps);
        deps.metrics?.writeBack(inv.source, written);
        return written;
      } catch (err) {
        deps.metrics?.writeBack(inv.source, failureOutcome(err, lastAttempt));
        const fields = { retryAfterMs: (err as RetryableError).retryAfterMs };
        const f = { id, lastAttempt, record, store: deps.store, log: deps.log, what: 'write-back', fields, save: true };
        return await recordFailure(err, f);
      }
    },
    busy,
  );
}

const FINISHED = new Set<Investigation['status']>(['completed', 'failed', 'cancelled', 'linked', 'skipped']);

/** The RCA to write: the investigation's own, or for a linked issue that of the investigations it links to. */
type Answer = Pick<Investigation, 'id' | 'rca' | 'linkHosts'>;

async function answerOf(
  inv: Investigation,
  deps: DeliveryDeps,
): Promise<Answer | { failure: string } | 'waiting' | null> {
  if (inv.status === 'completed') return inv.rca ? inv : null;
  if (inv.status !== 'linked') return null;
  const read = async (t: string) => {
    const target = await deps.store.get(t);
    return target && recordFor(deps, 'tickets', target);
  };
  const targets = (await Promise.all(inv.linkedTo.map(read))).filter((t): t is Investigation => t !== null);
  // Still to finish (queued, running, or paused for a human's approval): wait for it.
  if (targets.some((t) => !FINISHED.has(t.status))) return 'waiting';
  const done = targets.filter((t) => t.status === 'completed' && t.rca);
  if (done.length === 0) return { failure: `the linked investigations (${inv.linkedTo.join(', ')}) failed or expired` };
  const rca = done.length === 1 ? done[0]!.rca : done.map((t) => `# ${t.title}\n\n${t.rca}`).join('\n\n');
  return { id: done[0]!.id, rca, linkHosts: [...new Set(done.flatMap((t) => t.linkHosts))] };
}

async function writeUnderLock(
  inv: Investigation,
  answer: Answer,
  writer: RcaWriter,
  attempt: number,
  record: Recorder,
  deps: DeliveryDeps,
) {
  const locator = inv.issue.locator!;
  const refKey = keysOf(deps.redis).writtenComment(inv.source, locator.key);
  const stored = parseRef(await deps.redis.get(refKey));
  if (stored && stored.investigationId !== inv.id && stored.createdAt > inv.createdAt) {
    await saveRecord(
      deps.store,
      inv.id,
      record({
        status: 'superseded',
        commentId: stored.id,
        url: stored.url,
        error: `investigation ${stored.investigationId} is newer and already wrote`,
      }),
    );
    return 'superseded' as const;
  }
  const doc = commentFor(
    { ...answer, issue: inv.issue },
    { publicUrl: deps.publicUrl, linkHosts: deps.linkHosts, allowMentions: deps.allowMentions },
  );
  const resumeKey = keysOf(deps.redis).writeResume(inv.source, locator.key);
  let out;
  try {
    out = await writeRca(writer, locator, doc, stored?.id ?? null, { resume: await deps.redis.get(resumeKey) });
  } catch (err) {
    // Kept for whichever process makes the next attempt (under the same per-issue lock).
    if (err instanceof RetryableError && err.resumeToken)
      await deps.redis.set(resumeKey, err.resumeToken, 'EX', RESUME_TTL_SECONDS);
    else await deps.redis.del(resumeKey);
    throw err;
  }
  await deps.redis.del(resumeKey);
  const ref: WrittenRef = {
    id: out.comment.id,
    url: out.comment.url,
    investigationId: inv.id,
    createdAt: inv.createdAt,
  };
  await deps.redis.set(refKey, JSON.stringify(ref), 'EX', deps.retentionSeconds);
  await saveRecord(
    deps.store,
    inv.id,
    record({ status: 'written', commentId: out.comment.id, url: out.comment.url, error: null }),
  );
  deps.log.info(
    { id: inv.id, target: locator.key, action: out.action, commentId: out.comment.id, attempt },
    'RCA written back',
  );
  return 'written' as const;
}

/** What recordFailure makes of an error: refused, given up, or to be tried again. */
function failureOutcome(err: unknown, lastAttempt: boolean): WriteBackOutcome {
  if (err instanceof WriteRefusedError) return 'refused';
  return err instanceof PermanentError || lastAttempt ? 'failed' : 'retried';
}

function parseRef(text: string | null): WrittenRef | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as WrittenRef;
  } catch {
    return null;
  }
}
