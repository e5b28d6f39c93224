import type { DecidedBy } from '../records/approval.js';

/**
 * One remediation call applied (the hook of the remediation log fires it): what the verifier checks from.
 * `workload` is the object the call changed (a pod for kubectl_delete_pod).
 */
export interface RemediationApplied {
  investigationId: string;
  toolCallId: string;
  tool: string;
  params: Record<string, unknown>;
  workload: { kind: string; namespace: string; name: string };
  /** Who approved it, as the approval recorded them (its DecidedBy, or a name), or null when unknown. */
  approvedBy: DecidedBy | string | null;
  appliedAt: string;
  /** The tool's answer (its data: `applied`, `changes`, …). */
  result: unknown;
}

/** The tools that change a rollout (a pod template or the replicas): a failed one is offered an undo. */
export const ROLLOUT_TOOLS = new Set(['kubectl_rollout_restart', 'kubectl_rollout_undo', 'kubectl_scale']);

/** The approver in words: their name, else their id where they decided ("alice", "U024BE7LH on slack"). */
export function approverName(by: RemediationApplied['approvedBy']): string | null {
  if (by === null || typeof by === 'string') return by || null;
  return by.name ?? `${by.user} on ${by.via}`;
}
