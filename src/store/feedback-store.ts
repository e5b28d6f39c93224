import { PermanentError } from '../errors.js';
import { isInvestigationId, keysOf, type Keys } from '../redis/keys.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { RedisScript } from '../redis/run-script.js';
import { noSecrets, type Redactor } from '../redact.js';
import type { Logger } from '../log.js';
import { feedbackField, isFeedbackEntry, oldestFirst, type FeedbackEntry } from '../records/feedback.js';
import { publishChange } from './record-changes.js';

/** No investigation of that id (never was, or expired): nothing was recorded. */
export class InvestigationNotFoundError extends PermanentError {
  constructor(readonly investigationId: string) {
    super(`no investigation ${investigationId.slice(0, 64)}`);
  }
}

/** Told of every verdict that changed something (metrics; the memory of past incidents). */
export type FeedbackListener = (
  investigationId: string,
  entry: FeedbackEntry,
  entries: FeedbackEntry[],
  record: { source: string },
) => unknown;

export interface RecordedFeedback {
  /** False when the person had already said exactly this (a replay, a double click): nothing was written. */
  changed: boolean;
  /** Every person's latest verdict, oldest first. */
  entries: FeedbackEntry[];
}

/**
 * KEYS: record, feedback hash. ARGV: field, entry (JSON, `at` last), the entry's JSON up to `at`.
 * Nothing when the record is gone (-1); the same verdict, root cause and note from the same person
 * keeps the entry as it was (0); else the entry replaces that person's (1). The hash expires with
 * the record (its remaining time to live). Returns the flag, the record's source, then every entry.
 */
const RECORD_LUA = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1} end
local old = redis.call('HGET', KEYS[2], ARGV[1])
local changed = 0
if not old or string.sub(old, 1, #ARGV[3]) ~= ARGV[3] then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) else redis.call('PERSIST', KEYS[2]) end
  changed = 1
end
local all = redis.call('HVALS', KEYS[2])
table.insert(all, 1, redis.call('HGET', KEYS[1], 'source') or '')
table.insert(all, 1, changed)
return all
`);

/** An entry as JSON in a fixed key order with `at` last, so the part before `at` compares verdicts. */
function serialize(entry: FeedbackEntry): { json: string; head: string } {
  const { verdict, rootCause, note, by, at } = entry;
  const without = JSON.stringify({ verdict, rootCause, note, by: { via: by.via, user: by.user } });
  const head = `${without.slice(0, -1)},"at":`;
  return { json: `${head}${JSON.stringify(at)}}`, head };
}

function parseEntries(values: readonly string[]): FeedbackEntry[] {
  const entries: FeedbackEntry[] = [];
  for (const v of values) {
    try {
      const parsed: unknown = JSON.parse(v);
      if (isFeedbackEntry(parsed)) entries.push(parsed);
    } catch {
      // A damaged field is skipped: the rest still count.
    }
  }
  return oldestFirst(entries);
}

/**
 * People's verdicts on investigations' RCAs, a Redis hash per investigation in the record's slot
 * (`{prefix}:inv:<id>:feedback`, field `<via>:<user>`): the latest per person counts.
 */
export class FeedbackStore {
  private readonly keys: Keys;
  private readonly listeners: FeedbackListener[] = [];

  private readonly redact: Redactor;
  private readonly log: Logger | undefined;

  constructor(
    private readonly redis: RedisClient,
    opts: { redact?: Redactor; log?: Logger } = {},
  ) {
    this.keys = keysOf(redis);
    this.redact = opts.redact ?? noSecrets;
    this.log = opts.log;
  }

  /**
   * Calls `listener` after each verdict that changed something. The verdict is recorded by then: a
   * listener that fails is logged and does not fail the caller (who would retry and change nothing).
   */
  onFeedback(listener: FeedbackListener): void {
    this.listeners.push(listener);
  }

  /** Records a person's verdict; InvestigationNotFoundError when there is no such investigation. */
  async record(investigationId: string, entry: FeedbackEntry): Promise<RecordedFeedback> {
    if (!isInvestigationId(investigationId)) throw new InvestigationNotFoundError(investigationId);
    const clean = this.cleaned(entry);
    const { json, head } = serialize(clean);
    const reply = (await RECORD_LUA.run(
      this.redis,
      [this.keys.investigation(investigationId), this.keys.feedback(investigationId)],
      [feedbackField(clean.by), json, head],
    )) as [number, string, ...string[]];
    if (reply[0] === -1) throw new InvestigationNotFoundError(investigationId);
    const entries = parseEntries(reply.slice(2) as string[]);
    const changed = reply[0] === 1;
    if (changed) {
      await publishChange(this.redis, investigationId);
      const record = { source: reply[1] };
      for (const listener of this.listeners) await this.tell(() => listener(investigationId, clean, entries, record));
    }
    return { changed, entries };
  }

  /** Every person's latest verdict on an investigation, oldest first ([] when none, or no such investigation). */
  async list(investigationId: string): Promise<FeedbackEntry[]> {
    if (!isInvestigationId(investigationId)) return [];
    return parseEntries(await this.redis.hvals(this.keys.feedback(investigationId)));
  }

  private async tell(call: () => unknown): Promise<void> {
    try {
      await call();
    } catch (err) {
      this.log?.warn({ err: err instanceof Error ? err.message : String(err) }, 'a feedback listener failed');
    }
  }

  /** Texts people typed may quote a secret: redacted as every other text the records keep. */
  private cleaned(entry: FeedbackEntry): FeedbackEntry {
    return {
      verdict: entry.verdict,
      ...(entry.rootCause ? { rootCause: this.redact(entry.rootCause) } : {}),
      ...(entry.note ? { note: this.redact(entry.note) } : {}),
      by: { via: entry.by.via, user: entry.by.user },
      at: entry.at,
    };
  }
}
