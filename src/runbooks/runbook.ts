import { z } from 'zod';
import type { LabelMatcher } from '../intake-policy/label-matcher.js';

/** What a runbook's YAML front matter may say; anything else is refused, so a typo is not silently ignored. */
export const RunbookFrontMatterSchema = z.strictObject({
  title: z.string().min(1),
  description: z.string().min(1),
  /** Alertmanager matchers on the labels; all must hold. Empty or absent: any labels. */
  match: z.array(z.string().min(1)).default([]),
  /** Only issues of this source (alertmanager, github, jira, ...). */
  source: z.string().min(1).optional(),
  /** A regular expression the title must match. */
  titleMatches: z.string().min(1).refine(isRegExp, 'not a valid regular expression').optional(),
});

function isRegExp(text: string): boolean {
  try {
    new RegExp(text, 'u');
    return true;
  } catch {
    return false; // the schema's message says what is wrong
  }
}

/** A runbook of the catalog: where it is, what it says it is for, and its text. */
export interface Runbook {
  /** The file's path under its catalog folder, without `.md` (`db/pool-exhaustion`): what fetch_runbook takes. */
  id: string;
  file: string;
  title: string;
  description: string;
  matchers: LabelMatcher[];
  source?: string;
  titleMatches?: RegExp;
  body: string;
}

export type { RunbookUse } from '../records/runbook-use.js';

/** The tool that reads a runbook (toolsets/runbooks); the record lists what it read. */
export const FETCH_RUNBOOK = 'fetch_runbook';
