import type { Issue } from '../issue.js';

/**
 * How a rollout stands, as `kubectl rollout status` judges it: done (every replica updated and available, the
 * controller has seen the latest spec), progressing, or failed (the Deployment's ProgressDeadlineExceeded).
 */
export interface RolloutState {
  state: 'done' | 'progressing' | 'failed';
  /** One short sentence: "3 of 3 updated replicas available". */
  detail: string;
}

/** Reads a workload's rollout (the remediation toolset's kubectl). Throws when it cannot read it. */
export type RolloutProbe = (
  workload: { kind: string; namespace: string; name: string },
  signal: AbortSignal,
) => Promise<RolloutState>;

/** Whether the alert is firing now, as an alert source (Alertmanager's API, Prometheus' ALERTS) says. */
export interface AlertState {
  firing: boolean;
  /** What was asked, for the evidence: "Alertmanager", "Prometheus ALERTS". */
  via: string;
}

/**
 * Asks whether an issue's alert still fires; null when this probe cannot tell for this issue (not an alert, no
 * labels to ask with). Throws when the service does not answer.
 */
export interface AlertProbe {
  name: string;
  check(issue: Pick<Issue, 'fingerprint' | 'labels' | 'source'>, signal: AbortSignal): Promise<AlertState | null>;
}

/** What the verifier is handed to check with: none of them is required. */
export interface VerifyProbes {
  rollout?: RolloutProbe;
  alerts?: readonly AlertProbe[];
}
