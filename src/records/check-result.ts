/** A health check's verdict (docs/checks.md), as the model reports it through `report_check_result`. */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'error';

/** What an investigation of source `check` records about its check, read by destinations and the dashboard. */
export interface CheckOutcome {
  name: string;
  status: CheckStatus;
  /** The check's notified status before this run (undefined on its first run). */
  previous?: CheckStatus;
  summary: string;
  evidence: string[];
  /** Set when the run was started by a deploy (afterDeploy checks). */
  deploy?: import('./deploy-event.js').DeployEvent;
}
