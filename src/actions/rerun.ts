import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf, isInvestigationId } from '../redis/keys.js';
import { rerunJobId } from '../redis/job-data.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { Investigation } from '../store/investigation.js';
import { publishChange } from '../store/record-changes.js';
import { clip } from '../log-safe.js';
import { RedisScript } from '../redis/run-script.js';
import { RERUN_LUA } from '../store/run-control-lua.js';
import type { Continuations } from '../queue/continuations.js';
import type { DecideReply } from './decide-calls.js';

/**
 * The re-run transition (run-control-lua.ts, its guard from run-transitions.ts): a finished run
 * (completed, failed or cancelled) with no follow-up in progress goes back to queued as run number
 * n + 1: its RCA, error, tool calls, plan, usage, cost (so the usage ledger counts the new run once
 * too) and times are cleared, and the record (with a group's member sets) is kept while it runs. The
 * issue, the conversation (follow-up job ids count its entries) and the write-back records stay.
 */
const RERUN = new RedisScript(RERUN_LUA);

export interface RerunDeps {
  redis: RedisClient;
  store: InvestigationStore;
  continuations: Continuations;
}

export type RerunResult =
  | { outcome: 'queued'; run: number; runId: string }
  | { outcome: 'not_found' }
  /** Still queued, running or waiting for approval; or linked or skipped (no run of its own to repeat). */
  | { outcome: 'not_finished'; status: string }
  /** A follow-up question is in progress. */
  | { outcome: 'busy'; status: string };

/**
 * Runs a finished (completed, failed or cancelled) investigation again from the start, with the
 * same issue, as a new run with its own run id (`<id>-rerun-<n>`, its BullMQ job id). Its
 * write-back edits the comment the first run wrote (found by stored id, then by marker), as any
 * later write-back to the same issue does; routed destinations update their message.
 *
 * Safe to call again after a failure half-way: a record left queued by a re-run whose job was
 * never added gets its job (and nothing runs twice: the job id is the run's).
 */
export async function rerunInvestigation(deps: RerunDeps, id: string): Promise<RerunResult> {
  const inv = isInvestigationId(id) ? await deps.store.get(id) : null;
  if (!inv) return { outcome: 'not_found' };
  const keys = keysOf(deps.redis);
  const [outcome, detail] = (await RERUN.run(
    deps.redis,
    [keys.investigation(id), keys.approvals(id)],
    [new Date().toISOString(), id],
  )) as [string, string];
  if (outcome === 'not_found') return { outcome };
  if (outcome !== 'ok') return (await repaired(deps, inv)) ?? { outcome: outcome as 'busy', status: detail };
  const run = Number(detail);
  // The new run starts from the issue, not from the last run's conversation.
  await deps.redis.del(keys.checkpoint(id));
  await reopenWriteBacks(deps.store, inv);
  await publishChange(deps.redis, id);
  await deps.continuations.rerun(id, run);
  return { outcome: 'queued', run, runId: rerunJobId(id, run) };
}

/**
 * A re-run's outcome as the API answers it (status and body): one wording for the API, the CLI and Slack's
 * Re-run button. 202 queued; 404 unknown; 409 not finished or a follow-up in progress, saying which.
 */
export function rerunReply(result: RerunResult, id: string): DecideReply {
  switch (result.outcome) {
    case 'not_found':
      return { status: 404, body: { error: `no investigation ${clip(id, 64)}` } };
    case 'busy':
      return { status: 409, body: { error: `a follow-up question is in progress (status: ${result.status})` } };
    case 'not_finished':
      return {
        status: 409,
        body: { error: `only a completed, failed or cancelled investigation can be re-run (status: ${result.status})` },
      };
    default:
      return { status: 202, body: { status: 'queued', run: result.run, runId: result.runId } };
  }
}

/** A re-run queued by an earlier call that died before adding its job: the job is added now. */
async function repaired(deps: RerunDeps, inv: Investigation): Promise<RerunResult | null> {
  const run = inv.run ?? 1;
  if (inv.status !== 'queued' || run < 2 || inv.startedAt) return null;
  if (await deps.continuations.hasRerun(inv.id, run)) return null;
  await deps.redis.del(keysOf(deps.redis).checkpoint(inv.id));
  await reopenWriteBacks(deps.store, inv);
  await deps.continuations.rerun(inv.id, run);
  return { outcome: 'queued', run, runId: rerunJobId(inv.id, run) };
}

/**
 * The write-back to the issue's own source goes back to pending (keeping the comment it wrote),
 * so the re-run's completion requests it again and it edits that comment in place.
 */
async function reopenWriteBacks(store: InvestigationStore, inv: Investigation): Promise<void> {
  const own = inv.writeBacks.find((w) => !w.destination);
  if (own && own.status !== 'pending')
    await store.writeBacks.saveWriteBack(inv.id, { ...own, status: 'pending', attempts: 0, error: null });
}
