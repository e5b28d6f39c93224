import { rcaMarker } from '../../src/registration/rca-writer.js';
import type { JiraUser } from './schema.js';

/** Who Lestrade is on this Jira: accountId on Cloud, name and key on Data Center (GET /myself). */
export interface SelfIdentity {
  accountId?: string;
  name?: string;
  key?: string;
  /** The profile time zone, in which Jira reads JQL dates. */
  timeZone?: string;
}

/** What every marker of ours starts with, whatever the issue. */
export const MARKER_PREFIX = rcaMarker({ key: '', ref: {} });

export function isSelf(user: JiraUser | null | undefined, me: SelfIdentity | null): boolean {
  if (!user || !me) return false;
  if (me.accountId && user.accountId) return user.accountId === me.accountId;
  return Boolean((me.key && user.key === me.key) || (me.name && user.name === me.name));
}

export function carriesMarker(text: string): boolean {
  return text.includes(MARKER_PREFIX);
}

/** A comment Lestrade wrote: by our account, or carrying our marker (a copy made by anyone still is our text). */
export function isOwnComment(author: JiraUser | null | undefined, text: string, me: SelfIdentity | null): boolean {
  return carriesMarker(text) || isSelf(author, me);
}
