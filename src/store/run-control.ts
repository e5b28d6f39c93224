import type { CheckOutcome } from '../records/check-result.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { publishChange } from './record-changes.js';
import type { ApprovalDecision, ApprovalOutcome } from '../records/approval.js';
import type { AwaitingTurn } from '../records/loop-state.js';
import { noSecrets, type Redactor } from '../redact.js';
import type { ApprovalsView, ConversationEntry, Phase } from './investigation.js';
import { keysOf } from '../redis/keys.js';
import { decodeField, encodeField } from '../redis/lossless.js';
export type { ApprovalsView, Phase } from './investigation.js';
import type { AppliedCallLog } from '../records/applied-call.js';
import { RedisAppliedCalls } from './applied-calls.js';
import type { RemediationRails } from '../records/remediation.js';
import { redisRemediationRails, type RemediationRailsOptions } from './remediation-rails.js';
import type { LoopState } from '../records/loop-state.js';
import type { RunbookUse } from '../records/runbook-use.js';
import type { ToolCallRecord } from './investigation.js';
import { RedisScript } from '../redis/run-script.js';
import {
  ASK_LUA,
  BEGIN_LUA,
  CANCEL_LUA,
  DECIDE_LUA,
  EXPIRE_LUA,
  PAUSE_LUA,
  TRANSITION_LUA,
} from './run-control-lua.js';
import { TRANSITIONS, type AskSettlement, type TransitionName } from './run-transitions.js';
import { changeRecord, encodeFields } from './record-fields.js';

const TRANSITION = new RedisScript(TRANSITION_LUA);
const BEGIN = new RedisScript(BEGIN_LUA);
const PAUSE = new RedisScript(PAUSE_LUA);
const DECIDE = new RedisScript(DECIDE_LUA);
const EXPIRE = new RedisScript(EXPIRE_LUA);
const CANCEL = new RedisScript(CANCEL_LUA);
const ASK = new RedisScript(ASK_LUA);

/** How a transition that only sets fields treats the record's expiry: none, the record's, or with a group's member sets too. */
type Expiry = 'none' | 'record' | 'with-members';

export const statusField = (phase: Phase) => (phase === 'ask' ? 'askStatus' : 'status');

export type DecideResult =
  | { outcome: 'not_awaiting'; status: string }
  | { outcome: 'unknown' | 'decided'; toolCallId: string }
  | { outcome: 'partial' }
  | { outcome: 'complete'; seq: number };

export type AskResult = { outcome: 'ok'; entry: number } | { outcome: 'not_completed' | 'busy'; status: string };

/**
 * The state machine of runs, each change one atomic script guarded by the one table of
 * transitions (run-transitions.ts): begin (start), pause for approval, decide and expire (resume),
 * cancel, ask a follow-up, and finish (complete, fail, skip, requeue). Free text is redacted and
 * every field stored losslessly.
 */
export class RunControl {
  /** The namespace of the connection (see keys.ts). */
  private readonly keys;

  constructor(
    private readonly redis: RedisClient,
    private readonly retentionSeconds: number,
    private readonly redact: Redactor = noSecrets,
  ) {
    this.keys = keysOf(redis);
  }

  /** The at-most-once log of the approved calls of one run (`run`: its job id), kept as long as the record. */
  appliedCalls(id: string, run: string): AppliedCallLog {
    return new RedisAppliedCalls(this.redis, id, run, this.retentionSeconds);
  }

  /** The remediation rails of one investigation (remediation-rails.ts): in flight per workload, the daily cap, the record. */
  remediations(id: string, opts: RemediationRailsOptions): RemediationRails {
    return redisRemediationRails(this.redis, id, opts);
  }

  /** Starts the run for this job; false when it is not queued (or is running under another job). */
  async begin(id: string, phase: Phase, attempt: number, jobId: string): Promise<boolean> {
    const args = [statusField(phase), new Date().toISOString(), attempt, jobId];
    return changeRecord(this.redis, BEGIN, id, [this.keys.investigation(id)], args);
  }

  async pause(id: string, phase: Phase, turn: AwaitingTurn, timeoutSeconds: number): Promise<ApprovalsView | null> {
    const now = new Date();
    const view: ApprovalsView = {
      seq: turn.seq,
      phase,
      requestedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + timeoutSeconds * 1000).toISOString(),
      pending: turn.approvals.map(({ toolCallId, tool, params, reason }) => ({ toolCallId, tool, params, reason })),
    };
    const args = [
      statusField(phase),
      view.requestedAt,
      turn.seq,
      this.field(view),
      this.retentionSeconds,
      ...turn.approvals.map((a) => a.toolCallId),
    ];
    return (await changeRecord(this.redis, PAUSE, id, this.recordKeys(id), args)) ? view : null;
  }

  async decide(
    id: string,
    phase: Phase,
    decisions: Array<ApprovalDecision & { toolCallId: string }>,
  ): Promise<DecideResult> {
    const pairs = decisions.flatMap((d) => [
      d.toolCallId,
      this.field({
        approved: d.approved,
        ...(d.feedback ? { feedback: d.feedback } : {}),
        ...(d.decidedBy ? { decidedBy: d.decidedBy } : {}),
        decidedAt: new Date().toISOString(),
      }),
    ]);
    const [outcome, detail] = (await DECIDE.run(this.redis, this.recordKeys(id), [
      statusField(phase),
      new Date().toISOString(),
      ...pairs,
    ])) as [string, string];
    if (outcome === 'partial' || outcome === 'complete') await publishChange(this.redis, id);
    if (outcome === 'not_awaiting') return { outcome, status: detail };
    if (outcome === 'unknown' || outcome === 'decided') return { outcome, toolCallId: detail };
    if (outcome === 'partial') return { outcome };
    return { outcome: 'complete', seq: Number(detail) };
  }

  /** The decisions made on the current pause, and whether it expired. */
  async outcome(id: string): Promise<ApprovalOutcome> {
    const h = await this.redis.hgetall(this.keys.approvals(id));
    const decisions = new Map<string, ApprovalDecision>();
    for (const [field, value] of Object.entries(h)) {
      if (!field.startsWith('d:')) continue;
      const d = JSON.parse(decodeField(value)) as ApprovalDecision;
      decisions.set(field.slice(2), {
        approved: d.approved === true,
        ...(d.feedback ? { feedback: d.feedback } : {}),
        ...(d.decidedBy ? { decidedBy: d.decidedBy } : {}),
      });
    }
    return { decisions, expired: h.expired === '1' };
  }

  /** The number of the latest pause, and whether it expired. */
  async pauseState(id: string): Promise<{ seq: number; expired: boolean } | null> {
    const [seq, expired] = await this.redis.hmget(this.keys.approvals(id), 'seq', 'expired');
    return seq ? { seq: Number(seq), expired: expired === '1' } : null;
  }

  async expire(id: string, phase: Phase, seq: number): Promise<boolean> {
    const args = [statusField(phase), seq, new Date().toISOString()];
    return changeRecord(this.redis, EXPIRE, id, this.recordKeys(id), args);
  }

  /** Cancels the active run; null when nothing was queued, running or waiting. */
  async cancel(id: string): Promise<{ phase: Phase; previous: string } | { phase: null; status: string }> {
    const [phase, previous] = (await CANCEL.run(
      this.redis,
      [this.keys.investigation(id)],
      [new Date().toISOString(), this.retentionSeconds],
    )) as [string, string];
    if (phase === 'investigation' || phase === 'ask') {
      await publishChange(this.redis, id);
      return { phase, previous };
    }
    return { phase: null, status: previous };
  }

  async ask(id: string, conversation: ConversationEntry[], question: string): Promise<AskResult> {
    const entry: ConversationEntry = {
      question,
      answer: null,
      status: 'queued',
      askedAt: new Date().toISOString(),
      answeredAt: null,
      error: null,
    };
    const [outcome, status] = (await ASK.run(
      this.redis,
      [this.keys.investigation(id)],
      [entry.askedAt, this.field([...conversation, entry])],
    )) as [string, string];
    if (outcome !== 'ok') return { outcome: outcome as 'busy' | 'not_completed', status };
    await publishChange(this.redis, id);
    return { outcome: 'ok', entry: conversation.length };
  }

  /**
   * The investigation's RCA, tool calls and usage. Its checkpoint is kept (for follow-up
   * questions, within the retention). A cancelled investigation stays cancelled.
   */
  async complete(
    id: string,
    r: {
      rca: string;
      toolCalls: ToolCallRecord[];
      usage: LoopState['usage'];
      linkHosts?: string[];
      context?: LoopState['context'];
      runbooks?: RunbookUse[];
      redactions?: Record<string, number>;
      check?: CheckOutcome;
    },
  ): Promise<boolean> {
    const now = new Date().toISOString();
    return this.transition(id, 'complete', 'record', {
      ...(r.check ? { check: JSON.stringify(this.redact.deep(r.check)) } : {}),
      rca: r.rca,
      toolCalls: JSON.stringify(this.redact.deep(r.toolCalls)),
      usage: JSON.stringify(r.usage),
      linkHosts: JSON.stringify(r.linkHosts ?? []),
      error: '',
      finishedAt: now,
      updatedAt: now,
      approvals: '',
      ...(r.context ? { context: JSON.stringify(r.context) } : {}),
      ...(r.runbooks ? { runbooks: JSON.stringify(r.runbooks) } : {}),
      ...(r.redactions ? { redactions: JSON.stringify(r.redactions) } : {}),
    });
  }

  /** The investigation's job gave up: failed, with what the run got done when there is any. */
  async fail(
    id: string,
    error: string,
    partial?: { toolCalls: ToolCallRecord[]; usage: LoopState['usage'] },
  ): Promise<boolean> {
    const now = new Date().toISOString();
    return this.transition(id, 'fail', 'with-members', {
      error,
      finishedAt: now,
      updatedAt: now,
      ...(partial
        ? { toolCalls: JSON.stringify(this.redact.deep(partial.toolCalls)), usage: JSON.stringify(partial.usage) }
        : {}),
    });
  }

  /**
   * For jobs BullMQ failed without our handler finishing the record (stalled too often, a crash
   * between steps): ends a queued or running record as failed; leaves finished ones alone.
   */
  async failIfUnfinished(id: string, error: string): Promise<boolean> {
    const now = new Date().toISOString();
    return this.transition(id, 'failUnfinished', 'with-members', { error, finishedAt: now, updatedAt: now });
  }

  /** Ends a queued investigation without running it (a rule, or its issue resolved first); nothing finishes it later. */
  async skip(id: string, reason: string): Promise<boolean> {
    const now = new Date().toISOString();
    return this.transition(id, 'skip', 'with-members', { skipReason: reason, finishedAt: now, updatedAt: now });
  }

  /** A failed attempt that will be retried: back to queued, with why. */
  async requeue(id: string, error: string): Promise<boolean> {
    return this.transition(id, 'requeue', 'none', { error, updatedAt: new Date().toISOString() });
  }

  /**
   * Settles a follow-up question's run (answered, failed, or back to the queue) with its fields, guarded by the
   * table; with a TTL, restarts the record's expiry. Values are text (JSON already serialised), redacted and
   * stored losslessly.
   */
  async settleAsk(id: string, name: AskSettlement, fields: Record<string, string>, withTtl = false): Promise<boolean> {
    const { from, to } = TRANSITIONS[name];
    const pairs = Object.entries({ ...fields, askStatus: to }).flatMap(([k, v]) => [k, encodeField(this.redact(v))]);
    return this.runTransition(id, 'askStatus', from, withTtl ? this.retentionSeconds : '', '', pairs);
  }

  /** An investigation transition that sets fields: its guard and new status from the table. */
  private async transition(
    id: string,
    name: TransitionName,
    expiry: Expiry,
    fields: Record<string, string>,
  ): Promise<boolean> {
    const { from, to } = TRANSITIONS[name];
    const pairs = encodeFields(this.redact, { status: to, ...fields });
    const ttl = expiry === 'none' ? '' : this.retentionSeconds;
    return this.runTransition(id, 'status', from, ttl, expiry === 'with-members' ? '1' : '', pairs);
  }

  private async runTransition(
    id: string,
    field: string,
    from: readonly string[],
    ttl: number | '',
    members: '1' | '',
    pairs: string[],
  ): Promise<boolean> {
    const args = [field, from.join(','), ttl, members, ...pairs];
    return changeRecord(this.redis, TRANSITION, id, [this.keys.investigation(id)], args);
  }

  /** The record and its pause's approvals: the keys of the scripts that pause and resume. */
  private recordKeys(id: string): string[] {
    return [this.keys.investigation(id), this.keys.approvals(id)];
  }

  /** A value as a stored field: redacted JSON, encoded losslessly. */
  private field(value: unknown): string {
    return encodeField(this.redact(JSON.stringify(this.redact.deep(value))));
  }
}
