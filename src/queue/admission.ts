import type { BudgetGuard } from '../budget/budget-guard.js';
import type { UsageLedger } from '../budget/usage-ledger.js';
import type { IntakePolicy } from '../intake-policy/intake-policy.js';
import type { Investigation } from '../store/investigation.js';

/** What a worker does with a queued investigation it picked: run it, skip it, or put it back until later. */
export type Admission =
  { kind: 'run' } | { kind: 'skip'; reason: string } | { kind: 'wait'; reason: string; delayMs: number; until: string };

/** The worker's hooks for storms: whether to start now, and what a finished investigation cost. */
export interface WorkerHooks {
  admit(inv: Investigation): Promise<Admission>;
  /**
   * Called once a run has finished (completed or answered, or failed for good) with its usage: the
   * investigation's, or with `entry` what follow-up question `entry` used.
   */
  settled(id: string, usage: Investigation['usage'], entry?: number): Promise<void>;
}

export interface AdmissionDeps {
  policy: IntakePolicy;
  budgets: BudgetGuard;
  ledger: UsageLedger;
  /** The longest a job held back sleeps before looking again (budgets.recheckSeconds). */
  recheckMs: number;
  now?: () => number;
}

/**
 * In order: an issue that resolved while queued is skipped (never started, so nothing is lost);
 * a group's follow-up waits until the group has been quiet (or waited long enough); then the
 * budgets decide. Only a start that passes every check is counted against the budgets.
 */
export function workerHooks(deps: AdmissionDeps): WorkerHooks {
  const now = deps.now ?? Date.now;
  const wait = (reason: string, at: number): Admission => {
    const t = now();
    return {
      kind: 'wait',
      reason,
      until: new Date(at).toISOString(),
      delayMs: Math.max(1, Math.min(at - t, deps.recheckMs)),
    };
  };
  return {
    async admit(inv) {
      const fresh = inv.attempts === 0;
      if (fresh && inv.issueStatus === 'resolved' && deps.policy.skipResolvedWhileQueued) {
        return { kind: 'skip', reason: 'its issue resolved before the investigation started' };
      }
      const c = inv.coalescing;
      if (fresh && c && inv.followUpOf) {
        const quietAt = Math.min(c.lastJoinedAt + c.quietMs, Date.parse(inv.createdAt) + c.maxWaitMs);
        if (now() < quietAt)
          return wait(`group follow-up: waits until its group has been quiet for ${c.quietMs / 1000} s`, quietAt);
      }
      if (!deps.budgets.enabled) return { kind: 'run' };
      const d = await deps.budgets.tryStart({
        id: inv.id,
        source: inv.source,
        severity: inv.issue.severity,
        alertname: inv.issue.labels.alertname,
      });
      return d.ok ? { kind: 'run' } : wait(d.reason, d.retryAt);
    },
    async settled(id, usage, entry) {
      await deps.ledger.record(id, usage, entry);
    },
  };
}
