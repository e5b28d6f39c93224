import type { Poller } from '../../src/registration/source.js';
import type { JiraApi } from './jira-api.js';
import { jiraTimeToIso, jqlMinute } from './jira-time.js';
import { isResolved, issueFromBean } from './map-issue.js';
import { searchIssues } from './search-issues.js';

/** JQL dates have minute precision and are read in the user's zone: look back a little further than the cursor. */
export const OVERLAP_MS = 5 * 60_000;
/** Without the user's zone, the cursor may be read up to 14 hours off. */
const UNKNOWN_ZONE_OVERLAP_MS = 14 * 3_600_000 + OVERLAP_MS;
const MAX_PER_POLL = 500;

/** The user's query without its ORDER BY (outside quotes), which cannot stand inside parentheses. */
export function withoutOrderBy(jql: string): string {
  let quote: string | null = null;
  for (let i = 0; i < jql.length; i++) {
    const c = jql.charAt(i);
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if ((i === 0 || /\s/.test(c)) && /^\s*order\s+by\s/i.test(jql.slice(i))) {
      return jql.slice(0, i).trim();
    }
  }
  return jql.trim();
}

/**
 * One configured JQL, polled. The cursor is the newest `updated` seen (ISO); each poll asks for
 * issues updated since the cursor minus an overlap, oldest first. Issues seen again create nothing
 * (intake deduplicates by identity, the issue key); resolved ones mark their investigation. The
 * first poll looks back one interval, so turning polling on does not investigate the backlog.
 */
export function jiraPoller(
  api: JiraApi,
  entry: { jql: string; everySeconds: number },
  now: () => Date = () => new Date(),
): Poller {
  const everyMs = entry.everySeconds * 1000;
  return {
    id: `jira:${entry.jql}`,
    everyMs,
    async poll(cursor) {
      const me = await api.myself();
      const overlap = me.timeZone ? OVERLAP_MS : UNKNOWN_ZONE_OVERLAP_MS;
      const from = cursor === null ? NaN : Date.parse(cursor);
      const since = Number.isNaN(from) ? new Date(now().getTime() - everyMs) : new Date(from - overlap);
      const base = withoutOrderBy(entry.jql);
      const jql = `${base ? `(${base}) AND ` : ''}updated >= "${jqlMinute(since, me.timeZone)}" ORDER BY updated ASC`;
      const beans = await searchIssues(api, jql, { limit: MAX_PER_POLL });
      const issues = beans.map((b) =>
        issueFromBean(b, { site: api.site, self: me }, { status: isResolved(b) ? 'resolved' : 'open' }),
      );
      const seen = beans.map((b) => jiraTimeToIso(b.fields.updated)).filter((t): t is string => t !== null);
      const newest = [Number.isNaN(from) ? since.toISOString() : new Date(from).toISOString(), ...seen].sort().at(-1)!;
      return { issues, cursor: newest };
    },
  };
}
