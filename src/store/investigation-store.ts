import type { PlanTask } from '../records/plan.js';
import type { RunbookUse } from '../records/runbook-use.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { Issue, Severity } from '../issue.js';
import { hasFilter, matches, type ListFilter } from './list-filter.js';
import type { LoopState } from '../records/loop-state.js';
import { decodeCheckpoint, encodeCheckpoint } from './checkpoint.js';
import type {
  AskStatus,
  ConversationEntry,
  Investigation,
  InvestigationStatus,
  InvestigationSummary,
  ToolCallRecord,
} from './investigation.js';
import type { WriteBackRecord } from '../records/write-back-record.js';
import { claimMany, type ClaimItem } from './claim-many.js';
import type { ClaimReply } from './claim-script.js';
import { extraFields, questionCostField } from './extra-fields.js';
import { loadGroupIssue } from './group-members.js';
import { isInvestigationId, keysOf } from '../redis/keys.js';
import { decodeField, encodeField } from '../redis/lossless.js';
import { noSecrets, type Redactor } from '../redact.js';
import { MANY_CHANGED, publishChange } from './record-changes.js';

/**
 * HSET only on a record that still exists, so an expired one is never half re-created.
 * ARGV: TTL in seconds to set ('' for none), then field, value pairs.
 */
const UPDATE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
if ARGV[1] ~= '' then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  for _, side in ipairs({':members', ':fps', ':resolved', ':feedback'}) do redis.call('EXPIRE', KEYS[1] .. side, ARGV[1]) end
end
return 1
`;

/** Completes an existing record, unless it was cancelled meanwhile. ARGV: TTL, then field pairs. */
const COMPLETE_LUA = `
local status = redis.call('HGET', KEYS[1], 'status')
if not status or status == 'cancelled' then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1] .. ':feedback', ARGV[1])
return 1
`;

/** Fails a record only while it is unfinished (queued or running); returns 1 if it did. ARGV: TTL, then field pairs. */
const FAIL_UNFINISHED_LUA = `
local status = redis.call('HGET', KEYS[1], 'status')
if status ~= 'queued' and status ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], ARGV[1])
for _, side in ipairs({':members', ':fps', ':resolved', ':feedback'}) do redis.call('EXPIRE', KEYS[1] .. side, ARGV[1]) end
return 1
`;

export interface ClaimResult {
  created: boolean;
  id: string;
  status: InvestigationStatus | '';
}

export interface StoreOptions {
  dedupTtlSeconds: number;
  retentionSeconds: number;
}

/** Ids, statuses and timestamps are ours; everything else may quote a secret and is redacted first. */
const OWN_FIELDS = new Set([
  'id',
  'source',
  'severity',
  'status',
  'askStatus',
  'issueStatus',
  'createdAt',
  'updatedAt',
  'startedAt',
  'finishedAt',
  'resolvedAt',
  'attempts',
  'context',
  'priority',
  'quietMs',
  'maxWaitMs',
  'waitingUntil',
  'run',
  'runId',
]);

export class InvestigationStore {
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
  }

  /**
   * Claims the issue's identity. With `linkTo`, the record points at those investigations; with
   * `linkedOnly`, it starts as `linked` (no investigation of its own will run).
   */
  async claim(issue: Issue, link: { linkTo?: string[]; linkedOnly?: boolean } = {}): Promise<ClaimResult> {
    const {
      items: [r],
    } = await this.claimMany([
      { kind: 'claim', issue, status: link.linkedOnly ? 'linked' : 'queued', priority: 0, linkTo: link.linkTo },
    ]);
    return { created: r!.code === 'created', id: r!.id, status: r!.status as ClaimResult['status'] };
  }

  /** Claims and resolves every issue of a delivery in one atomic round trip (see claim-script.ts). */
  async claimMany(
    items: readonly ClaimItem[],
    now = new Date(),
  ): Promise<{ items: ClaimReply[]; undispatched: number }> {
    const claimed = await claimMany(
      this.redis,
      items,
      { ...this.opts, redact: this.redact, encode: (f) => this.encode(f) },
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

  /** Records that `fromId` (another source's issue) links to investigation `id`. */
  async addLinkedFrom(id: string, fromId: string): Promise<void> {
    await this.redis
      .multi()
      .sadd(this.keys.linkedFrom(id), fromId)
      .expire(this.keys.linkedFrom(id), this.opts.retentionSeconds)
      .exec();
  }

  /** addLinkedFrom for many [id, fromId] pairs in one round trip. */
  async addLinkedFromMany(pairs: ReadonlyArray<readonly [string, string]>): Promise<void> {
    if (pairs.length === 0) return;
    const tx = this.redis.multi();
    for (const [id, fromId] of pairs)
      tx.sadd(this.keys.linkedFrom(id), fromId).expire(this.keys.linkedFrom(id), this.opts.retentionSeconds);
    await tx.exec();
  }

  /**
   * Marks the investigation of a resolved issue: the one of the same identity, else the latest
   * of the same fingerprint. Returns its id, or null if there is none.
   */
  async markIssueResolved(issue: Pick<Issue, 'source' | 'identity' | 'fingerprint'>): Promise<string | null> {
    const id =
      (await this.redis.get(this.keys.dedup(issue.source, issue.identity))) ??
      (await this.redis.get(this.keys.latest(issue.source, issue.fingerprint)));
    if (!id) return null;
    const now = new Date().toISOString();
    return (await this.update(id, { issueStatus: 'resolved', resolvedAt: now, updatedAt: now })) ? id : null;
  }

  /** Ends a queued investigation without running it (a rule, or its issue resolved first); nothing finishes it later. */
  async skip(id: string, reason: string): Promise<boolean> {
    const now = new Date().toISOString();
    return this.changed(
      id,
      await this.redis.eval(
        FAIL_UNFINISHED_LUA,
        1,
        this.keys.investigation(id),
        this.opts.retentionSeconds,
        ...this.encode({ status: 'skipped', skipReason: reason, finishedAt: now, updatedAt: now }),
      ),
    );
  }

  /** Says why a queued investigation waits (a budget, a group's quiet time); '' when it no longer does. */
  async setWaiting(id: string, reason: string, until: string | null): Promise<void> {
    await this.update(id, { waitingReason: reason, waitingUntil: until ?? '' });
  }

  async markRunning(id: string, attempt: number): Promise<void> {
    const now = new Date().toISOString();
    await this.update(id, { status: 'running', startedAt: now, updatedAt: now, attempts: String(attempt) });
  }

  async requeue(id: string, error: string): Promise<void> {
    await this.update(id, { status: 'queued', error, updatedAt: new Date().toISOString() });
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
    },
  ): Promise<boolean> {
    const now = new Date().toISOString();
    const fields = {
      status: 'completed',
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
    };
    return this.changed(
      id,
      await this.redis.eval(
        COMPLETE_LUA,
        1,
        this.keys.investigation(id),
        this.opts.retentionSeconds,
        ...this.encode(fields),
      ),
    );
  }

  /** The model's plan (todo_write) as it stands: shown by the API while the run goes on and after. */
  async savePlan(id: string, plan: PlanTask[]): Promise<void> {
    await this.update(id, { plan: JSON.stringify(this.redact.deep(plan)) });
  }

  /** Progress of a run that is not finished (tool calls, usage, context), for the API. */
  async saveProgress(
    id: string,
    p: {
      toolCalls: ToolCallRecord[];
      usage: LoopState['usage'];
      context: LoopState['context'];
      runbooks?: RunbookUse[];
    },
  ): Promise<void> {
    await this.update(id, {
      toolCalls: JSON.stringify(this.redact.deep(p.toolCalls)),
      usage: JSON.stringify(p.usage),
      context: JSON.stringify(p.context),
      ...(p.runbooks ? { runbooks: JSON.stringify(p.runbooks) } : {}),
    });
  }

  async fail(
    id: string,
    error: string,
    partial?: { toolCalls: ToolCallRecord[]; usage: LoopState['usage'] },
  ): Promise<void> {
    const now = new Date().toISOString();
    await this.update(
      id,
      {
        status: 'failed',
        error,
        finishedAt: now,
        updatedAt: now,
        ...(partial
          ? { toolCalls: JSON.stringify(this.redact.deep(partial.toolCalls)), usage: JSON.stringify(partial.usage) }
          : {}),
      },
      this.opts.retentionSeconds,
    );
  }

  /** Records the state of the investigation's write-back to its own issue (one per investigation). */
  async saveWriteBack(id: string, record: WriteBackRecord): Promise<boolean> {
    return this.update(id, { writeBacks: JSON.stringify([record]), updatedAt: new Date().toISOString() });
  }

  /** Records the state of one routed destination's write-back: a field of its own, so destinations never race. */
  async saveDestinationWriteBack(id: string, record: WriteBackRecord & { destination: string }): Promise<boolean> {
    return this.update(id, { [`${DESTINATION_FIELD}${record.destination}`]: JSON.stringify(record) });
  }

  /**
   * For jobs BullMQ failed without our handler finishing the record (stalled too often, a crash
   * between steps): ends a queued or running record as failed; leaves finished ones alone.
   */
  async failIfUnfinished(id: string, error: string): Promise<boolean> {
    const now = new Date().toISOString();
    const fields = { status: 'failed', error, finishedAt: now, updatedAt: now };
    return this.changed(
      id,
      await this.redis.eval(
        FAIL_UNFINISHED_LUA,
        1,
        this.keys.investigation(id),
        this.opts.retentionSeconds,
        ...this.encode(fields),
      ),
    );
  }

  /** Sets fields on an existing record; with ttlSeconds, (re)starts its expiry. */
  private async update(id: string, fields: Record<string, string>, ttlSeconds?: number): Promise<boolean> {
    return this.changed(
      id,
      await this.redis.eval(UPDATE_LUA, 1, this.keys.investigation(id), ttlSeconds ?? '', ...this.encode(fields)),
    );
  }

  /** A script's reply 1 means the record changed: tells the dashboards (see record-changes.ts). */
  private async changed(id: string, reply: unknown): Promise<boolean> {
    if (reply !== 1) return false;
    await publishChange(this.redis, id);
    return true;
  }

  /** Field, value pairs for HSET: free text redacted (JSON values were redacted before serialising), all stored losslessly. */
  private encode(fields: Record<string, string>): string[] {
    return Object.entries(fields).flatMap(([k, v]) => [
      k,
      encodeField(
        OWN_FIELDS.has(k) ||
          k === 'issue' ||
          k === 'toolCalls' ||
          k === 'usage' ||
          k === 'approvals' ||
          k === 'conversation'
          ? v
          : this.redact(v),
      ),
    ]);
  }

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
    const [hash, linkedFrom] = await Promise.all([
      this.redis.hgetall(this.keys.investigation(id)),
      this.redis.smembers(this.keys.linkedFrom(id)),
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
      run: Number(h.run ?? 1),
      runId: h.runId || (h.id ?? ''),
      ...extraFields(h),
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

const DESTINATION_FIELD = 'wb:';

/** The write-back to the issue's own source first, then each routed destination's, by name. */
function writeBacksOf(h: Record<string, string>): WriteBackRecord[] {
  const own = JSON.parse(h.writeBacks ?? '[]') as WriteBackRecord[];
  const routed = Object.keys(h)
    .filter((k) => k.startsWith(DESTINATION_FIELD))
    .sort()
    .map((k) => JSON.parse(h[k]!) as WriteBackRecord);
  return [...own, ...routed];
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
