/**
 * What an investigation records of the memory it was given (docs/memory.md): the similar past incidents
 * found before the model ran, and the confirmed predecessor whose RCA it reused instead of running the model.
 */

/** A person's verdict on a past RCA (as src/records/feedback.ts and src/memory say it). */
export type PastVerdict = 'correct' | 'partly' | 'wrong';

/** One similar past incident as the investigation shows it (GET /api/investigations/:id, the dashboard). */
export interface SimilarPast {
  /** The past investigation's id (its page: /investigations/:id). */
  id: string;
  title: string;
  /** When the past investigation finished. */
  at: string;
  /** 0–1, at least memory.minScore. */
  score: number;
  verdict: PastVerdict | null;
  /** Third-party text: the person's stated root cause (rootCauseBy 'person') or the RCA's root-cause section. */
  rootCause: string;
  rootCauseBy: 'person' | 'rca';
  /** Who gave the verdict. */
  confirmedBy?: string;
  /** The very same alert or ticket (source and fingerprint), not only a similar one. */
  sameFingerprint: boolean;
}

/** Set on an investigation that wrote back a confirmed predecessor's RCA without running the model. */
export interface ReusedFrom {
  /** The confirmed predecessor's investigation id. */
  from: string;
}
