import type { JiraApi } from './jira-api.js';
import { ISSUE_FIELDS, type IssueBean } from './schema.js';

export const SEARCH_PAGE_SIZE = 50;

/**
 * Every issue a JQL query finds, page by page (Cloud: nextPageToken until isLast; Data Center:
 * startAt until total), stopping once `limit` issues are in hand.
 */
export async function searchIssues(
  api: JiraApi,
  jql: string,
  opts: { limit?: number; pageSize?: number } = {},
): Promise<IssueBean[]> {
  const limit = opts.limit ?? Infinity;
  const out: IssueBean[] = [];
  let next: string | null = null;
  do {
    const maxResults = Math.min(opts.pageSize ?? SEARCH_PAGE_SIZE, limit - out.length);
    const page = await api.searchPage(jql, { fields: ISSUE_FIELDS, maxResults, next });
    out.push(...page.issues);
    next = page.issues.length ? page.next : null;
  } while (next !== null && out.length < limit);
  return out.slice(0, limit);
}
