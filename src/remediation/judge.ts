import type { RemediationVerification } from '../records/remediation.js';
import { approverName, type RemediationApplied } from './applied-event.js';
import type { RolloutState } from './probes.js';

/**
 * What one check saw. `rollout`: the workload's rollout, 'n/a' for a call that changes none (a pod deleted), or
 * 'unreadable'. `issue`: whether the alert or the issue resolved, and when; `live` when a service answered for the
 * alert now (Alertmanager, Prometheus), which a ticket's open status is not.
 */
export interface Observation {
  now: number;
  deadline: number;
  rollout: RolloutState | 'n/a' | 'unreadable';
  issue:
    | { resolved: true; at: number; what: 'alert' | 'issue'; via: string }
    | { resolved: false; live: boolean; what: 'alert' | 'issue'; via: string };
}

/** "2 min", "40 s": how long after the action. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.round(s / 60)} min`;
}

/** "the restart of deployment/web approved by alice". */
export function actionPhrase(e: RemediationApplied): string {
  const w = `${e.workload.kind}/${e.workload.name}`;
  const what: Record<string, string> = {
    kubectl_rollout_restart: `the restart of ${w}`,
    kubectl_rollout_undo: `the rollback of ${w}`,
    kubectl_scale: `the scaling of ${w}${typeof e.params.replicas === 'number' ? ` to ${e.params.replicas}` : ''}`,
    kubectl_delete_pod: `the deletion of ${w}`,
  };
  const by = approverName(e.approvedBy);
  return `${what[e.tool] ?? `${e.tool} on ${w}`}${by ? ` approved by ${by}` : ''}`;
}

/**
 * The verification this observation settles, or null to check again later. Mitigated: the alert (or issue)
 * resolved and the rollout, if any, finished. Not mitigated: the rollout failed; or the window ended with the
 * rollout unfinished or the alert still firing. Unknown: the window ended and nothing live could tell.
 */
export function judge(e: RemediationApplied, o: Observation): RemediationVerification | null {
  const checkedAt = new Date(o.now).toISOString();
  const done = (status: RemediationVerification['status'], evidence: string) => ({ status, checkedAt, evidence });
  const action = actionPhrase(e);
  const applied = Date.parse(e.appliedAt);
  const rollout = typeof o.rollout === 'object' ? o.rollout : null;
  if (rollout?.state === 'failed')
    return done('not_mitigated', `the rollout after ${action} failed: ${rollout.detail}`);
  const rolloutOver = rollout === null || rollout.state === 'done';
  if (o.issue.resolved && o.issue.at < applied)
    return done('unknown', `the ${o.issue.what} resolved before ${action} was applied (${o.issue.via})`);
  if (o.issue.resolved && rolloutOver) {
    const after = `${duration(o.issue.at - applied)} after`;
    const how = rollout ? ` and the rollout finished (${rollout.detail})` : '';
    return done('mitigated', `the ${o.issue.what} resolved ${after} ${action}${how} (${o.issue.via})`);
  }
  if (o.now < o.deadline) return null;
  const window = duration(o.deadline - applied);
  if (rollout && rollout.state !== 'done')
    return done('not_mitigated', `the rollout had not finished ${window} after ${action}: ${rollout.detail}`);
  if (!o.issue.resolved && o.issue.live)
    return done('not_mitigated', `the ${o.issue.what} was still firing ${window} after ${action} (${o.issue.via})`);
  const rolloutNote = rollout ? `; the rollout finished (${rollout.detail})` : '';
  return done(
    'unknown',
    `nothing live could tell whether ${action} helped: the ${o.issue.what} was still open ${window} after it (${o.issue.via})${rolloutNote}`,
  );
}
