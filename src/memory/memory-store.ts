import { InputError } from '../errors.js';
import type { Keys } from '../redis/keys.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { DEFAULT_IDENTIFYING_LABELS } from '../config/memory-schema.js';
import { exactKeysOfQuery, indexKeysOfRecord, rarestKeysOfQuery } from './memory-index.js';
import { clip, isVerdict, normaliseRecord } from './memory-normalise.js';
import { findMemoryScript } from './memory-find-script.js';
import { putMemoryScript } from './memory-put-script.js';
import {
  identifyingLabelsOf,
  MAX_ROOT_CAUSE_CHARS,
  type MemoryQuery,
  type MemoryRecord,
  type SimilarIncident,
  type Verdict,
} from './memory-record.js';
import { prepareQuery, sameFingerprint, scoreRecord } from './memory-score.js';

export interface MemoryStoreOptions {
  retentionDays: number;
  minScore: number;
  maxSimilar: number;
  /** The labels a record keeps and a query compares (memory.identifyingLabels). */
  identifyingLabels?: readonly string[];
}

export interface FindOptions {
  limit?: number;
  minScore?: number;
  /** Leave this investigation out (the new issue's own record, when it has one). */
  excludeId?: string;
}

export interface VerdictUpdate {
  verdict: Verdict;
  /** The actual root cause as a person states it: replaces the RCA's. */
  rootCause?: string;
  /** Who said so (a user name, "slack:U123", a token's name). */
  by: string;
}

const DAY_MS = 86_400_000;
/** Newest entries read from each index for one query: bounds the work however large memory grows. */
const PER_INDEX = 50;
/**
 * Alert-and-label (or title-word) indexes read for one query, the smallest first: a true repeat is in
 * every one of the labels both sides have, so the rarest few find it even where one label is missing
 * on one side; the rarest words of a ticket say the most.
 */
const RAREST_INDEXES = 3;
/** Tries of a compare-and-set write before giving up (each loses only to another write of the same record). */
const CAS_TRIES = 8;

/**
 * Memory of past incidents in Redis (docs/memory.md): one JSON record per finished investigation
 * under its own key (expiring memory.retentionDays after the investigation finished), listed in
 * sorted-set indexes scored by time; similar incidents are found by reading a few small indexes and
 * their records (memory-find-script.ts, then one MGET) and scoring the candidates here
 * (memory-score.ts). Every key carries the namespace's hash tag, so the scripts work on a Redis Cluster.
 */
export class MemoryStore {
  private readonly labelNames: readonly string[];

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly options: MemoryStoreOptions,
  ) {
    this.labelNames = options.identifyingLabels ?? DEFAULT_IDENTIFYING_LABELS;
  }

  /**
   * Records (or replaces) the memory of one investigation; the same record twice changes nothing.
   * A verdict and root cause a person gave earlier stay when the new record carries no verdict
   * (a re-run's RCA does not undo what people said).
   */
  async remember(rec: MemoryRecord, now = Date.now()): Promise<void> {
    const next = normaliseRecord(rec, this.labelNames);
    if (Date.parse(next.at) + this.retentionMs() <= now) {
      await this.forget(next.investigationId, now);
      return;
    }
    await this.write(next.investigationId, (old) => keepPersonsWord(old, next), now);
  }

  /**
   * A person's verdict on a remembered investigation; a stated root cause replaces the RCA's
   * (rootCauseBy 'person'). Returns whether the record changed (false for an unknown id too).
   */
  async setVerdict(investigationId: string, update: VerdictUpdate, now = Date.now()): Promise<boolean> {
    if (!isVerdict(update.verdict)) throw new InputError('verdict', 'must be correct, partly or wrong');
    if (typeof update.by !== 'string' || update.by.trim() === '')
      throw new InputError('by', 'must name who gave the verdict');
    const cause = update.rootCause?.trim();
    if (update.rootCause !== undefined && !cause) throw new InputError('rootCause', 'must not be empty when given');
    return this.write(
      investigationId,
      (old) =>
        old && {
          ...old,
          verdict: update.verdict,
          confirmedBy: update.by.trim(),
          ...(cause ? { rootCause: clip(cause, MAX_ROOT_CAUSE_CHARS), rootCauseBy: 'person' as const } : {}),
        },
      now,
    );
  }

  /** Removes an investigation's memory; false when there was none. */
  async forget(investigationId: string, now = Date.now()): Promise<boolean> {
    return this.write(investigationId, () => null, now);
  }

  async get(investigationId: string): Promise<MemoryRecord | null> {
    return parse(await this.redis.get(this.keys.memoryRecord(investigationId)));
  }

  /** How many records are remembered (within the retention). */
  async count(now = Date.now()): Promise<number> {
    return this.redis.zcount(this.keys.memoryTimeline(), now - this.retentionMs(), '+inf');
  }

  /** Past incidents like `query`, best first; [] when none scores memory.minScore (declining is an answer). */
  async findSimilar(query: MemoryQuery, opts: FindOptions = {}, now = Date.now()): Promise<SimilarIncident[]> {
    const q = { ...query, labels: identifyingLabelsOf(query.labels, this.labelNames) };
    const exact = exactKeysOfQuery(this.keys, q);
    const ids = (await findMemoryScript.run(
      this.redis,
      [...exact, ...rarestKeysOfQuery(this.keys, q)],
      [exact.length, now - this.retentionMs(), PER_INDEX, RAREST_INDEXES, opts.excludeId ?? ''],
    )) as string[];
    if (ids.length === 0) return [];
    const raw = await this.redis.mget(ids.map((id) => this.keys.memoryRecord(id)));
    const prepared = prepareQuery(q);
    const minScore = opts.minScore ?? this.options.minScore;
    const found: SimilarIncident[] = [];
    for (const value of raw) {
      const rec = parse(value);
      if (!rec) continue;
      const score = scoreRecord(prepared, rec);
      if (score >= minScore) found.push(similar(rec, score, sameFingerprint(q, rec)));
    }
    found.sort((a, b) => b.score - a.score || b.at.localeCompare(a.at) || a.id.localeCompare(b.id));
    return found.slice(0, opts.limit ?? this.options.maxSimilar);
  }

  private retentionMs(): number {
    return this.options.retentionDays * DAY_MS;
  }

  /**
   * Read, change, compare-and-set: `change` gets the stored record (or null) and returns the new one
   * (null deletes, undefined/false leaves it). Returns whether the stored record changed.
   */
  private async write(
    id: string,
    change: (old: MemoryRecord | null) => MemoryRecord | null | undefined | false,
    now: number,
  ): Promise<boolean> {
    const key = this.keys.memoryRecord(id);
    for (let attempt = 0; attempt < CAS_TRIES; attempt++) {
      const oldJson = (await this.redis.get(key)) ?? '';
      const old = parse(oldJson);
      const next = change(old);
      if (next === undefined || next === false) return false;
      const nextJson = next ? JSON.stringify(next) : '';
      if (nextJson === oldJson) return false;
      const oldKeys = old ? indexKeysOfRecord(this.keys, old) : [];
      const newKeys = next ? indexKeysOfRecord(this.keys, next) : [];
      const at = next ? Date.parse(next.at) : 0;
      const cutoff = now - this.retentionMs();
      const done = await putMemoryScript.run(
        this.redis,
        [key, this.keys.memoryTimeline(), ...oldKeys, ...newKeys],
        [oldJson, nextJson, id, at, at + this.retentionMs(), now, oldKeys.length, cutoff],
      );
      if (Number(done) === 1) return true;
    }
    throw new Error(`memory record ${id}: changed by others ${CAS_TRIES} times in a row; try again`);
  }
}

function keepPersonsWord(old: MemoryRecord | null, next: MemoryRecord): MemoryRecord {
  if (!old || old.verdict === null || next.verdict !== null) return next;
  const { confirmedBy, verdict } = old;
  const cause = old.rootCauseBy === 'person' ? { rootCause: old.rootCause, rootCauseBy: old.rootCauseBy } : {};
  return { ...next, ...cause, verdict, ...(confirmedBy ? { confirmedBy } : {}) };
}

function parse(json: string | null): MemoryRecord | null {
  if (!json) return null;
  try {
    return JSON.parse(json) as MemoryRecord;
  } catch {
    return null;
  }
}

function similar(r: MemoryRecord, score: number, same: boolean): SimilarIncident {
  return {
    id: r.investigationId,
    title: r.title,
    at: r.at,
    score,
    verdict: r.verdict,
    rootCause: r.rootCause,
    rootCauseBy: r.rootCauseBy,
    ...(r.confirmedBy ? { confirmedBy: r.confirmedBy } : {}),
    sameFingerprint: same,
  };
}
