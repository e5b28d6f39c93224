import type { ReusedFrom, SimilarPast } from '../records/past-incident.js';

/** What memory left on a record (docs/memory.md): the similar past incidents found, a reused predecessor. */
export interface MemoryFields {
  /** Similar past incidents found before the model ran, best first; [] when none was similar enough (or none looked). */
  similar: SimilarPast[];
  /** The confirmed predecessor whose RCA this investigation wrote back without running the model; null when it ran. */
  reused: ReusedFrom | null;
}

export function memoryFields(h: Record<string, string | undefined>): MemoryFields {
  return {
    similar: h.similar ? (JSON.parse(h.similar) as SimilarPast[]) : [],
    reused: h.reused ? (JSON.parse(h.reused) as ReusedFrom) : null,
  };
}

/** The record's fields for what memory found at the start of a run (replacing the last run's). */
export function memoryFieldValues(m: MemoryFields): Record<string, string> {
  return { similar: JSON.stringify(m.similar), reused: m.reused ? JSON.stringify(m.reused) : '' };
}
