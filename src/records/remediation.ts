/**
 * What became of an applied remediation (docs/remediation.md, "Verified"): checked for
 * `toolsets.kubernetes_remediation.verifyWindowSeconds` after it was applied.
 * mitigated: the rollout finished and the alert (or the issue) resolved; not_mitigated: the window ended with the
 * alert still firing, or the rollout failed; unknown: nothing could tell.
 */
export interface RemediationVerification {
  status: 'mitigated' | 'not_mitigated' | 'unknown';
  checkedAt: string;
  evidence: string;
}
