import type { Router } from 'express';
import type { Issue } from './issue.js';
import type { Logger } from './log.js';
import type { Intake } from './queue/intake.js';

/** What a puller asks a source for. */
export interface IssueQuery {
  /** Only issues whose labels include all of these. */
  labels?: Record<string, string>;
  /** Only issues whose title (or alert name) matches. */
  titlePattern?: RegExp;
  limit?: number;
}

/**
 * HolmesGPT's three-method source interface. Write-back is optional: Alertmanager has
 * nowhere to write, ticket systems do.
 */
export interface Source {
  readonly name: string;
  fetchIssues(query: IssueQuery): Promise<Issue[]>;
  fetchIssue(identity: string): Promise<Issue | null>;
  writeBack?(issue: Issue, rca: string): Promise<void>;
}

/** A source that also receives pushed events, mounted under /webhooks/<name>. */
export interface WebhookReceiver {
  readonly name: string;
  /** Warnings to log at start-up, e.g. "no authentication configured". */
  readonly warnings: string[];
  router(deps: { intake: Intake; log: Logger; bodyLimitBytes: number }): Router;
}
