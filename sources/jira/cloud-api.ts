import { Version3Client, type Version3Models } from 'jira.js';
import { z } from 'zod';
import { call, parseAnswer, type JiraApi } from './jira-api.js';
import { jiraJsApi, REQUEST_TIMEOUT_MS } from './jira-js-calls.js';
import { IssueBeanSchema } from './schema.js';

const SearchResultsSchema = z.object({
  issues: z.array(IssueBeanSchema).default([]),
  nextPageToken: z.string().nullish(),
  isLast: z.boolean().optional(),
});

const asDoc = (body: unknown) => body as Version3Models.Document;

/**
 * Jira Cloud through jira.js's Version3Client: basic auth with email + API token, ADF bodies,
 * search through /rest/api/3/search/jql (token paging, no total). jira.js (axios) does not retry.
 */
export function cloudApi(site: string, email: string, apiToken: string): JiraApi {
  const client = new Version3Client({
    host: site,
    authentication: { basic: { email, apiToken } },
    baseRequestConfig: { timeout: REQUEST_TIMEOUT_MS },
  });
  return jiraJsApi(site, client, {
    deployment: 'cloud',
    self: (me) => ({ accountId: me.accountId, timeZone: me.timeZone }),
    async searchPage(jql, opts) {
      const data = await call('search/jql', () =>
        client.issueSearch.searchForIssuesUsingJqlEnhancedSearchPost({
          jql,
          fields: opts.fields,
          maxResults: opts.maxResults,
          nextPageToken: opts.next ?? undefined,
          // search/jql is eventually consistent; reconciling names issues it must reflect already.
          reconcileIssues: opts.reconcileIds?.map(Number),
        }),
      );
      const page = parseAnswer(SearchResultsSchema, data, 'search/jql');
      const next =
        page.isLast === false || (page.isLast === undefined && page.nextPageToken)
          ? (page.nextPageToken ?? null)
          : null;
      return { issues: page.issues, next };
    },
    getUserWithGroups: (user) => client.users.getUser({ accountId: user.accountId ?? '', expand: 'groups' }),
    addComment: (key, body, fields) =>
      client.issueComments.addComment({ issueIdOrKey: key, comment: asDoc(body), ...fields }),
    updateComment: (key, id, body, fields) =>
      client.issueComments.updateComment({ issueIdOrKey: key, id, body: asDoc(body), ...fields }),
  });
}
