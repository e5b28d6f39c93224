import type { FeedbackEntry, Verdict } from '../records/feedback.js';
import type { RemediationVerification } from '../records/remediation.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { RECURRENCE_WINDOWS, recurrences } from '../store/firings.js';
import type { Investigation } from '../store/investigation.js';
import { consensus } from './verdicts.js';

/**
 * What happened after the RCA, without anyone having to say (docs/quality.md): the people's verdict,
 * how long after the RCA the issue resolved, whether it came back, and how often it was re-run or
 * asked about.
 */
export interface Outcome {
  /** The consensus of each person's latest verdict (see verdicts.ts); null when nobody rated it. */
  verdict: Verdict | null;
  /** Seconds from the RCA's finishing to the issue's resolving; null when it has not resolved, has no RCA, or resolved first. */
  resolvedAfterSeconds: number | null;
  /** Fired again (a new investigation of the same fingerprint) within 24 h / 7 days of resolving; null while not resolved. */
  recurredWithin24h: boolean | null;
  recurredWithin7d: boolean | null;
  /** How many times it was run again (run - 1). */
  reruns: number;
  /** Follow-up questions asked. */
  followUps: number;
  /**
   * What Lestrade's own check said of the last verified remediation applied on it (docs/remediation.md, "Verified"):
   * a signal beside people's verdicts; null when no remediation was applied and verified.
   */
  remediation: RemediationVerification['status'] | null;
}

/** The remediations applied on an investigation, as far as the outcome reads them (the record's `remediation`). */
export interface RemediationFacts {
  remediation?: readonly { appliedAt?: string; verification?: RemediationVerification | null }[];
}

type OutcomeFacts = Pick<
  Investigation,
  'id' | 'source' | 'status' | 'finishedAt' | 'resolvedAt' | 'run' | 'conversation'
> &
  RemediationFacts & {
    issue: Pick<Investigation['issue'], 'fingerprint' | 'alerts'> | null;
  };

/** Seconds from the RCA to the resolution: only for an RCA that was there before the issue resolved. */
export function resolvedAfterSeconds(
  status: string,
  finishedAt: string | null,
  resolvedAt: string | null,
): number | null {
  if (status !== 'completed' || !finishedAt || !resolvedAt) return null;
  const seconds = (Date.parse(resolvedAt) - Date.parse(finishedAt)) / 1000;
  return Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds) : null;
}

/** The fingerprints an investigation answers for: its issue's, and a group's members'. */
export function fingerprintsOf(issue: OutcomeFacts['issue']): string[] {
  if (!issue) return [];
  return [...new Set([issue.fingerprint, ...(issue.alerts ?? []).map((a) => a.fingerprint)].filter(Boolean))];
}

/** The outcome of one investigation: its feedback as given, its record, and one Redis round trip for recurrence. */
export async function outcomeOf(
  redis: RedisClient,
  inv: OutcomeFacts,
  feedback: readonly FeedbackEntry[],
): Promise<Outcome> {
  const resolvedAtMs = inv.resolvedAt ? Date.parse(inv.resolvedAt) : NaN;
  const after = Number.isFinite(resolvedAtMs)
    ? (
        await recurrences(redis, [
          { id: inv.id, source: inv.source, fingerprints: fingerprintsOf(inv.issue), resolvedAtMs },
        ])
      )[0]!
    : undefined;
  return {
    verdict: consensus(feedback),
    resolvedAfterSeconds: resolvedAfterSeconds(inv.status, inv.finishedAt, inv.resolvedAt),
    ...recurredFlags(after),
    reruns: Math.max(0, (inv.run ?? 1) - 1),
    followUps: inv.conversation.length,
    remediation: remediationSignal(inv.remediation),
  };
}

/** The status of the latest verification (by its check's time): the last action's effect is the one that stands. */
export function remediationSignal(entries: RemediationFacts['remediation']): Outcome['remediation'] {
  const verified = (entries ?? []).flatMap((e) => (e.verification ? [e.verification] : []));
  if (verified.length === 0) return null;
  return verified.reduce((a, b) => (Date.parse(b.checkedAt) >= Date.parse(a.checkedAt) ? b : a)).status;
}

/** undefined: not resolved (both null); null: no recurrence within 7 days (so far); else the seconds to the first. */
export function recurredFlags(
  after: number | null | undefined,
): Pick<Outcome, 'recurredWithin24h' | 'recurredWithin7d'> {
  if (after === undefined) return { recurredWithin24h: null, recurredWithin7d: null };
  return {
    recurredWithin24h: after !== null && after <= RECURRENCE_WINDOWS.day,
    recurredWithin7d: after !== null && after <= RECURRENCE_WINDOWS.week,
  };
}
