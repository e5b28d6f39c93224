import { readFileSync } from 'node:fs';
import type { SimilarIncident } from '../../src/memory/memory-record.js';
import type { MemoryStore } from '../../src/memory/memory-store.js';
import type { LabelledQuery, RetrievalSet } from '../fixtures/memory/generate-types.js';

/** The labelled retrieval set (tests/fixtures/memory/retrieval-set.json, made by generate.ts there). */
export function loadRetrievalSet(): RetrievalSet {
  return JSON.parse(
    readFileSync(new URL('../fixtures/memory/retrieval-set.json', import.meta.url), 'utf8'),
  ) as RetrievalSet;
}

export interface QueryOutcome {
  query: LabelledQuery;
  offered: SimilarIncident[];
  /** The first offer is one of the query's true repeats. */
  firstRight: boolean;
}

export interface RetrievalQuality {
  queries: number;
  withRepeats: number;
  novel: number;
  offered: number;
  /** Of the queries where something was offered, the share whose first offer is a true repeat. */
  precision: number;
  /** Of the queries that have true repeats, the share whose first offer is one. */
  recall: number;
  /** Of the queries that have none, the share where anything was offered. */
  falseOfferRate: number;
  outcomes: QueryOutcome[];
}

/** Every past incident remembered (as of the queries' time), then every query asked. */
export async function loadIncidents(store: MemoryStore, set: RetrievalSet): Promise<void> {
  const now = Math.max(...set.queries.map((q) => Date.parse(q.at)));
  for (const rec of set.incidents) await store.remember(rec, now);
}

export async function measureRetrieval(
  store: MemoryStore,
  set: RetrievalSet,
  opts: { minScore?: number } = {},
): Promise<RetrievalQuality> {
  const outcomes: QueryOutcome[] = [];
  for (const query of set.queries) {
    const offered = await store.findSimilar(query.query, opts, Date.parse(query.at));
    outcomes.push({ query, offered, firstRight: offered.length > 0 && query.repeats.includes(offered[0]!.id) });
  }
  return qualityOf(outcomes);
}

export function qualityOf(outcomes: QueryOutcome[]): RetrievalQuality {
  const withOffer = outcomes.filter((o) => o.offered.length > 0);
  const withRepeats = outcomes.filter((o) => o.query.repeats.length > 0);
  const novel = outcomes.filter((o) => o.query.repeats.length === 0);
  const share = (n: number, d: number) => (d === 0 ? 1 : n / d);
  return {
    queries: outcomes.length,
    withRepeats: withRepeats.length,
    novel: novel.length,
    offered: withOffer.length,
    precision: share(withOffer.filter((o) => o.firstRight).length, withOffer.length),
    recall: share(withRepeats.filter((o) => o.firstRight).length, withRepeats.length),
    falseOfferRate: share(novel.filter((o) => o.offered.length > 0).length, novel.length),
    outcomes,
  };
}
