import { Version2Client } from 'jira.js';
import { z } from 'zod';
import { call, parseAnswer, type JiraApi } from './jira-api.js';
import { jiraJsApi, REQUEST_TIMEOUT_MS } from './jira-js-calls.js';
import { IssueBeanSchema } from './schema.js';

const SearchResultsSchema = z.object({
  issues: z.array(IssueBeanSchema).default([]),
  startAt: z.int().optional(),
  total: z.int().optional(),
});

const asText = (body: unknown) => String(body);

/**
 * Jira Data Center through jira.js's Version2Client: the personal access token goes out as
 * `Authorization: Bearer <pat>`, which jira.js does for `authentication.oauth2.accessToken`
 * (with a host and no refresh token or cloudId it does nothing else OAuth-like). Bodies are
 * wiki markup; search is /rest/api/2/search with startAt paging.
 */
export function dataCenterApi(site: string, pat: string): JiraApi {
  const client = new Version2Client({
    host: site,
    authentication: { oauth2: { accessToken: pat } },
    baseRequestConfig: { timeout: REQUEST_TIMEOUT_MS },
  });
  return jiraJsApi(site, client, {
    deployment: 'datacenter',
    self: (me) => ({ name: me.name, key: me.key, timeZone: me.timeZone }),
    async searchPage(jql, opts) {
      const startAt = Number(opts.next ?? 0);
      const data = await call('search', () =>
        client.issueSearch.searchForIssuesUsingJql({ jql, fields: opts.fields, maxResults: opts.maxResults, startAt }),
      );
      const page = parseAnswer(SearchResultsSchema, data, 'search');
      const after = startAt + page.issues.length;
      const more = page.issues.length > 0 && (page.total === undefined || after < page.total);
      return { issues: page.issues, next: more ? String(after) : null };
    },
    // jira.js's v2 getUser takes only accountId; Data Center names users by username.
    getUserWithGroups: (user) =>
      client.sendRequest<unknown>(
        { url: '/rest/api/2/user', method: 'GET', params: { username: user.name ?? '', expand: 'groups' } },
        undefined as never,
      ),
    addComment: (key, body, fields) =>
      client.issueComments.addComment({ issueIdOrKey: key, comment: asText(body), ...fields }),
    updateComment: (key, id, body, fields) =>
      client.issueComments.updateComment({ issueIdOrKey: key, id, comment: asText(body), ...fields }),
  });
}
