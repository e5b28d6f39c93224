import type { CheckOutcome } from '../records/check-result.js';
import type { PlanTask } from '../records/plan.js';
import type { RunbookUse } from '../records/runbook-use.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { Issue, Severity } from '../issue.js';
import { hasFilter, matches, type ListFilter } from './list-filter.js';
import type { LoopState } from '../records/loop-state.js';
import { decodeCheckpoint, encodeCheckpoint } from './checkpoint.js';
import { restoreDeep } from '../redaction/redaction.js';
import type {
  AskStatus,
  ConversationEntry,
  Investigation,
  InvestigationStatus,
  InvestigationSummary,
  ToolCallRecord,
} from './investigation.js';
import { extraFields, questionCostField } from './extra-fields.js';
import { memoryFields, memoryFieldValues, type MemoryFields } from './memory-fields.js';
import { loadGroupIssue } from './group-members.js';
import { isInvestigationId, keysOf } from '../redis/keys.js';
import { listRemediation } from './remediation-log.js';
import { decodeField, encodeField } from '../redis/lossless.js';
import { noSecrets, type Redactor } from '../redact.js';
import { updateRecord } from './record-fields.js';
import { Claims, type StoreOptions } from './claims.js';
import { WriteBackRecords, writeBacksOf } from './write-back-records.js';

export type { StoreOptions } from './claims.js';

/**
 * An investigation's record as the API, the dashboard and the worker read it, and what a run
 * writes as it goes (checkpoints, outputs, plan, progress). Its other parts: claims (creating
 * records), writeBacks (where the RCA went); a run's status changes only by RunControl
 * (run-control.ts, the table in run-transitions.ts).
 */
export class InvestigationStore {
  /** Issues' identities: claiming them, finding them, linking them. */
  readonly claims: Claims;

  /** Where the RCA was (or is being) written. */
  readonly writeBacks: WriteBackRecords;

  /** The configuration's secrets, blanked: applied to every text and JSON value written, and by the worker to what it hands BullMQ. */
  readonly redact: Redactor;

  /** The namespace of the connection (see keys.ts). */
  private readonly keys;

  constructor(
    private readonly redis: RedisClient,
    private readonly opts: StoreOptions,
    redact: Redactor = noSecrets,
  ) {
    this.redact = redact;
    this.keys = keysOf(redis);
    this.claims = new Claims(redis, opts, redact);
    this.writeBacks = new WriteBackRecords(redis, redact);
  }

  /** Says why a queued investigation waits (a budget, a group's quiet time); '' when it no longer does. */
  async setWaiting(id: string, reason: string, until: string | null): Promise<void> {
    await updateRecord(this.redis, this.redact, id, { waitingReason: reason, waitingUntil: until ?? '' });
  }

  /** What memory found as a run starts (similar past incidents, a reused predecessor): replaces the last run's. */
  async saveMemoryUse(id: string, m: MemoryFields): Promise<boolean> {
    return updateRecord(this.redis, this.redact, id, memoryFieldValues(m));
  }

  /** The model's plan (todo_write) as it stands: shown by the API while the run goes on and after. */
  /** A health check's outcome as its state settled it (docs/checks.md): the verdict with the status notified before. */
  async saveCheckOutcome(id: string, outcome: CheckOutcome): Promise<void> {
    await updateRecord(this.redis, this.redact, id, { check: JSON.stringify(this.redact.deep(outcome)) });
  }

  async savePlan(id: string, plan: PlanTask[]): Promise<void> {
    await updateRecord(this.redis, this.redact, id, { plan: JSON.stringify(this.redact.deep(plan)) });
  }

  /** Progress of a run that is not finished (tool calls, usage, context), for the API. */
  async saveProgress(
    id: string,
    p: {
      toolCalls: ToolCallRecord[];
      usage: LoopState['usage'];
      context: LoopState['context'];
      runbooks?: RunbookUse[];
      redactions?: Record<string, number>;
    },
  ): Promise<void> {
    await updateRecord(this.redis, this.redact, id, {
      ...(p.redactions ? { redactions: JSON.stringify(p.redactions) } : {}),
      toolCalls: JSON.stringify(this.redact.deep(p.toolCalls)),
      usage: JSON.stringify(p.usage),
      context: JSON.stringify(p.context),
      ...(p.runbooks ? { runbooks: JSON.stringify(p.runbooks) } : {}),
    });
  }

  /** The loop's state after a step: what a resumed run (approvals, a retry, a follow-up) starts from. */
  async saveCheckpoint(id: string, state: LoopState): Promise<void> {
    await this.redis.set(
      this.keys.checkpoint(id),
      encodeCheckpoint(this.redact.deep(state)),
      'EX',
      this.opts.retentionSeconds,
    );
  }

  /** Keeps a tool output too large to send the model whole, for the API (redacted, retention TTL). */
  async saveOutput(id: string, toolCallId: string, text: string): Promise<void> {
    await this.redis.set(
      this.keys.output(id, toolCallId),
      encodeField(this.redact(text)),
      'EX',
      this.opts.retentionSeconds,
    );
  }

  async getOutput(id: string, toolCallId: string): Promise<string | null> {
    if (!isInvestigationId(id)) return null;
    const text = await this.redis.get(this.keys.output(id, toolCallId));
    return text === null ? null : decodeField(text);
  }

  /**
   * The record with the placeholders of its redaction mapped back to the values (`redaction.restoreIn`: the
   * dashboard, the API), from its checkpoint; as it is when the checkpoint is gone (retention) or unreadable.
   */
  async restored(inv: Investigation): Promise<Investigation> {
    let state: LoopState | null;
    try {
      state = await this.loadCheckpoint(inv.id);
    } catch {
      return inv;
    }
    return restoreDeep(state?.redaction, inv);
  }

  async hasCheckpoint(id: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.checkpoint(id))) === 1;
  }

  /** The saved state, validated against its version's schema; CheckpointError when old or damaged. */
  async loadCheckpoint(id: string): Promise<LoopState | null> {
    const text = await this.redis.get(this.keys.checkpoint(id));
    return text ? decodeCheckpoint(text) : null;
  }

  async get(id: string): Promise<Investigation | null> {
    if (!isInvestigationId(id)) return null;
    const [hash, linkedFrom, remediation] = await Promise.all([
      this.redis.hgetall(this.keys.investigation(id)),
      this.redis.smembers(this.keys.linkedFrom(id)),
      listRemediation(this.redis, id),
    ]);
    const h = decodeHash(hash);
    if (!h.id) return null;
    const group = h.group ? await loadGroupIssue(this.redis, id) : null;
    const issue = (group ?? JSON.parse(h.issue ?? 'null')) as Issue;
    return {
      ...summary(h),
      severity: (h.severity || issue?.severity || 'unknown') as Severity,
      identity: h.identity ?? '',
      issue,
      rca: h.rca || null,
      toolCalls: JSON.parse(h.toolCalls ?? '[]') as ToolCallRecord[],
      usage: JSON.parse(h.usage ?? '{"promptTokens":0,"completionTokens":0,"llmCalls":0}') as Investigation['usage'],
      attempts: Number(h.attempts ?? 0),
      error: h.error || null,
      resolvedAt: h.resolvedAt ?? null,
      writeBacks: writeBacksOf(h),
      linkHosts: JSON.parse(h.linkHosts ?? '[]') as string[],
      linkedTo: JSON.parse(h.linkedTo ?? '[]') as string[],
      linkedFrom: linkedFrom.sort(),
      approvals:
        h.approvals && (h.status === 'awaiting_approval' || h.askStatus === 'awaiting_approval')
          ? (JSON.parse(h.approvals) as Investigation['approvals'])
          : null,
      conversation: conversationOf(h),
      context: h.context ? (JSON.parse(h.context) as Investigation['context']) : null,
      plan: h.plan ? (JSON.parse(h.plan) as PlanTask[]) : [],
      runbooks: h.runbooks ? (JSON.parse(h.runbooks) as RunbookUse[]) : [],
      redactions: h.redactions ? (JSON.parse(h.redactions) as Record<string, number>) : {},
      run: Number(h.run ?? 1),
      runId: h.runId || (h.id ?? ''),
      remediation,
      ...extraFields(h),
      ...memoryFields(h),
      ...(h.check ? { check: JSON.parse(h.check) as CheckOutcome } : {}),
    };
  }

  /**
   * Newest first, narrowed by `filter` (see list-filter.ts). Index entries whose record has expired
   * are dropped on the way. With a status, source or severity filter the index is read in pages
   * until `offset + limit` matches are found; `since` bounds the read by the index's score (creation time).
   */
  async list(limit = 50, offset = 0, filter: ListFilter = {}): Promise<InvestigationSummary[]> {
    const min = filter.sinceMs === undefined ? '-inf' : String(filter.sinceMs);
    if (!hasFilter(filter))
      return this.summaries(await this.redis.zrevrangebyscore(this.keys.index(), '+inf', min, 'LIMIT', offset, limit));
    const out: InvestigationSummary[] = [];
    const page = Math.max(200, limit);
    for (let at = 0; out.length < offset + limit; at += page) {
      const ids = await this.redis.zrevrangebyscore(this.keys.index(), '+inf', min, 'LIMIT', at, page);
      for (const s of await this.summaries(ids)) if (matches(s, filter)) out.push(s);
      if (ids.length < page) break;
    }
    return out.slice(offset, offset + limit);
  }

  private async summaries(ids: string[]): Promise<InvestigationSummary[]> {
    if (ids.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const id of ids) pipeline.hmget(this.keys.investigation(id), ...SUMMARY_FIELDS);
    const rows = (await pipeline.exec()) ?? [];
    const out: InvestigationSummary[] = [];
    const expired: string[] = [];
    rows.forEach(([, values], i) => {
      const v = values as Array<string | null>;
      if (!v[0]) expired.push(ids[i]!);
      else out.push(summary(Object.fromEntries(SUMMARY_FIELDS.map((f, j) => [f, decodeField(v[j])]))));
    });
    if (expired.length)
      await this.redis
        .multi()
        .zrem(this.keys.index(), ...expired)
        .zrem(this.keys.idIndex(), ...expired)
        .exec();
    await this.severityOfOlderRecords(out);
    return out;
  }

  /** Records written before `severity` had a field of its own carry it only in their issue. */
  private async severityOfOlderRecords(list: InvestigationSummary[]): Promise<void> {
    const missing = list.filter((s) => !s.severity);
    if (missing.length === 0) return;
    const pipeline = this.redis.pipeline();
    for (const s of missing) pipeline.hget(this.keys.investigation(s.id), 'issue');
    const rows = (await pipeline.exec()) ?? [];
    rows.forEach(([, value], i) => {
      const issue = value ? (JSON.parse(decodeField(value as string)) as Partial<Issue>) : {};
      missing[i]!.severity = issue.severity ?? 'unknown';
    });
  }
}

/** Follow-ups, the last one carrying the live status of the run answering it. */
function conversationOf(h: Record<string, string>): ConversationEntry[] {
  const entries = JSON.parse(h.conversation || '[]') as ConversationEntry[];
  // Each question's cost is its own ledger entry on the record (usage-ledger.ts).
  entries.forEach((e, i) => {
    const cost = h[questionCostField(i)];
    if (cost) e.cost = JSON.parse(cost) as ConversationEntry['cost'];
  });
  const last = entries.at(-1);
  if (last && h.askStatus && last.status !== 'answered' && last.status !== 'failed')
    last.status = h.askStatus as AskStatus;
  return entries;
}

function decodeHash(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, decodeField(v)]));
}

const SUMMARY_FIELDS = [
  'id',
  'source',
  'title',
  'severity',
  'status',
  'issueStatus',
  'createdAt',
  'updatedAt',
  'startedAt',
  'finishedAt',
] as const;

function summary(h: Record<string, string | undefined>): InvestigationSummary {
  return {
    id: h.id ?? '',
    source: h.source ?? '',
    title: h.title ?? '',
    severity: (h.severity ?? '') as Severity,
    status: (h.status ?? 'queued') as InvestigationStatus,
    issueStatus: (h.issueStatus ?? 'open') as 'open' | 'resolved',
    createdAt: h.createdAt ?? '',
    updatedAt: h.updatedAt ?? '',
    startedAt: h.startedAt ?? null,
    finishedAt: h.finishedAt ?? null,
  };
}
