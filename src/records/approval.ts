/** A human's answer to one pending call. */
export interface ApprovalDecision {
  approved: boolean;
  feedback?: string;
  /** Who decided, shown in the API (never sent to the model). */
  decidedBy?: DecidedBy;
}

/**
 * Where a decision came from and who made it: a Slack user id, a GitHub login, a Jira accountId, or
 * for the API, the CLI and the dashboard the name of the API token used (what the caller claimed only
 * when no token is configured).
 */
export interface DecidedBy {
  via: 'api' | 'cli' | 'dashboard' | 'slack' | 'mattermost' | 'github' | 'jira';
  user: string;
  name?: string;
}

/** What a paused loop resumes with: decisions by tool call id; undecided calls count as expired when `expired`. */
export interface ApprovalOutcome {
  decisions: Map<string, ApprovalDecision>;
  expired: boolean;
}
