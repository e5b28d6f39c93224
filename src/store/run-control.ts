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
import { ASK_LUA, BEGIN_LUA, CANCEL_LUA, DECIDE_LUA, EXPIRE_LUA, PAUSE_LUA, UPDATE_IF_LUA } from './run-control-lua.js';

export const statusField = (phase: Phase) => (phase === 'ask' ? 'askStatus' : 'status');

export type DecideResult =
  | { outcome: 'not_awaiting'; status: string }
  | { outcome: 'unknown' | 'decided'; toolCallId: string }
  | { outcome: 'partial' }
  | { outcome: 'complete'; seq: number };

export type AskResult = { outcome: 'ok'; entry: number } | { outcome: 'not_completed' | 'busy'; status: string };

/**
 * The state machine of runs, each change one atomic script: begin, pause for approval, decide,
 * expire, cancel, ask a follow-up, finish. Free text is redacted and every field stored losslessly.
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

  /** Starts the run for this job; false when it is not queued (or is running under another job). */
  async begin(id: string, phase: Phase, attempt: number, jobId: string): Promise<boolean> {
    return this.changed(
      id,
      await this.redis.eval(
        BEGIN_LUA,
        1,
        this.keys.investigation(id),
        statusField(phase),
        new Date().toISOString(),
        attempt,
        jobId,
      ),
    );
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
    const ok = await this.redis.eval(
      PAUSE_LUA,
      2,
      this.keys.investigation(id),
      this.keys.approvals(id),
      statusField(phase),
      view.requestedAt,
      turn.seq,
      this.field(view),
      this.retentionSeconds,
      ...turn.approvals.map((a) => a.toolCallId),
    );
    return (await this.changed(id, ok)) ? view : null;
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
    const [outcome, detail] = (await this.redis.eval(
      DECIDE_LUA,
      2,
      this.keys.investigation(id),
      this.keys.approvals(id),
      statusField(phase),
      new Date().toISOString(),
      ...pairs,
    )) as [string, string];
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
    return this.changed(
      id,
      await this.redis.eval(
        EXPIRE_LUA,
        2,
        this.keys.investigation(id),
        this.keys.approvals(id),
        statusField(phase),
        seq,
        new Date().toISOString(),
      ),
    );
  }

  /** Cancels the active run; null when nothing was queued, running or waiting. */
  async cancel(id: string): Promise<{ phase: Phase; previous: string } | { phase: null; status: string }> {
    const [phase, previous] = (await this.redis.eval(
      CANCEL_LUA,
      1,
      this.keys.investigation(id),
      new Date().toISOString(),
      this.retentionSeconds,
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
    const [outcome, status] = (await this.redis.eval(
      ASK_LUA,
      1,
      this.keys.investigation(id),
      entry.askedAt,
      this.field([...conversation, entry]),
    )) as [string, string];
    if (outcome !== 'ok') return { outcome: outcome as 'busy' | 'not_completed', status };
    await publishChange(this.redis, id);
    return { outcome: 'ok', entry: conversation.length };
  }

  /**
   * Sets fields only while the run's status is `expected`; with a TTL, restarts the record's
   * expiry. Values are text (JSON already serialised), redacted and stored losslessly.
   */
  async updateIf(
    id: string,
    phase: Phase,
    expected: string,
    fields: Record<string, string>,
    withTtl = false,
  ): Promise<boolean> {
    const pairs = Object.entries(fields).flatMap(([k, v]) => [k, encodeField(this.redact(v))]);
    return this.changed(
      id,
      await this.redis.eval(
        UPDATE_IF_LUA,
        1,
        this.keys.investigation(id),
        statusField(phase),
        expected,
        withTtl ? this.retentionSeconds : '',
        ...pairs,
      ),
    );
  }

  /** A script's reply 1 means the record changed: tells the dashboards (see record-changes.ts). */
  private async changed(id: string, reply: unknown): Promise<boolean> {
    if (reply !== 1) return false;
    await publishChange(this.redis, id);
    return true;
  }

  /** A value as a stored field: redacted JSON, encoded losslessly. */
  private field(value: unknown): string {
    return encodeField(this.redact(JSON.stringify(this.redact.deep(value))));
  }
}
