import type { Issue } from '../../src/issue.js';
import { anIssue } from './issue.js';

/** A plain open issue from a `tickets` source, its fingerprint its identity: what the store tests claim (anIssue's defaults). */
export const ticketIssue = (identity: string): Issue => anIssue(identity);
