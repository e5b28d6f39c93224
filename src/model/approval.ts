/** A human's answer to one pending call. */
export interface ApprovalDecision {
  approved: boolean;
  feedback?: string;
}

/** What a paused loop resumes with: decisions by tool call id; undecided calls count as expired when `expired`. */
export interface ApprovalOutcome {
  decisions: Map<string, ApprovalDecision>;
  expired: boolean;
}
