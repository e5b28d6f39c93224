import type { RemediationApplied } from './applied-event.js';

/** The call that undoes a rollout change, for a person to approve: a tool of the remediation toolset and its params. */
export interface UndoCall {
  tool: string;
  params: Record<string, unknown>;
}

/** The replicas before a scale, from its answer's changes ("spec.replicas: 3 → 5"). */
function replicasBefore(result: unknown): number | null {
  const changes = (result as { changes?: unknown } | null)?.changes;
  if (!Array.isArray(changes)) return null;
  for (const line of changes) {
    const m = typeof line === 'string' ? /^spec\.replicas: (\d+) → \d+$/.exec(line) : null;
    if (m) return Number(m[1]);
  }
  return null;
}

/**
 * What undoes an applied rollout change: a restart or a rollback of a deployment is undone by rolling it back to
 * the revision before (kubectl_rollout_undo), a scale by setting the replicas it had. Null when there is no such
 * call: a pod deletion, a restart of a statefulset or daemonset (kubectl_rollout_undo takes deployments only), a
 * scale whose earlier replicas are not in its answer.
 */
export function undoCallFor(e: RemediationApplied): UndoCall | null {
  const { kind, namespace, name } = e.workload;
  if ((e.tool === 'kubectl_rollout_restart' || e.tool === 'kubectl_rollout_undo') && kind === 'deployment')
    return { tool: 'kubectl_rollout_undo', params: { namespace, name } };
  if (e.tool === 'kubectl_scale') {
    const replicas = replicasBefore(e.result);
    return replicas === null ? null : { tool: 'kubectl_scale', params: { kind, namespace, name, replicas } };
  }
  return null;
}
