import { Version2Client } from 'jira.js';
import { z } from 'zod';
import { REQUEST_TIMEOUT_MS } from './cloud-api.js';
import {
  actorsOf,
  call,
  COMMENTS_PAGE_SIZE,
  groupNames,
  roleIds,
  commentFields,
  MARKER_PROPERTY,
  nextCommentPage,
  once,
  parseAnswer,
  type JiraApi,
} from './jira-api.js';
import { CommentSchema, EntityPropertySchema, IssueBeanSchema, PageOfCommentsSchema, UserSchema } from './schema.js';

const SearchResultsSchema = z.object({
  issues: z.array(IssueBeanSchema).default([]),
  startAt: z.int().optional(),
  total: z.int().optional(),
});

type CommentCall = 'listComments' | 'getComment' | 'getMarkerProperty' | 'addComment' | 'updateComment';

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
  return {
    deployment: 'datacenter',
    site,
    myself: once(async () => {
      const me = parseAnswer(UserSchema, await call('GET /myself', () => client.myself.getCurrentUser()), 'myself');
      return { name: me.name, key: me.key, timeZone: me.timeZone };
    }),
    async getIssue(key, fields) {
      const data = await call(`get issue ${key}`, () => client.issues.getIssue({ issueIdOrKey: key, fields }), {
        nullOn404: true,
      });
      return data === null ? null : parseAnswer(IssueBeanSchema, data, `issue ${key}`);
    },
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
    ...commentCalls(client),
    ...permissionCalls(client),
  };
}

const asText = (body: unknown) => String(body);

/** The issue's comments: paged, one by one, our marker property, and our writes. */
function commentCalls(client: Version2Client): Pick<JiraApi, CommentCall> {
  return {
    async listComments(key, startAt) {
      const data = await call(`list comments of ${key}`, () =>
        client.issueComments.getComments({
          issueIdOrKey: key,
          startAt,
          maxResults: COMMENTS_PAGE_SIZE,
          orderBy: 'created',
        }),
      );
      const page = parseAnswer(PageOfCommentsSchema, data, `comments of ${key}`);
      return { comments: page.comments, next: nextCommentPage(startAt, page.comments.length, page.total) };
    },
    async getComment(key, id) {
      const data = await call(
        `get comment ${id} of ${key}`,
        () => client.issueComments.getComment({ issueIdOrKey: key, id }),
        { nullOn404: true },
      );
      return data === null ? null : parseAnswer(CommentSchema, data, `comment ${id}`);
    },
    async getMarkerProperty(commentId) {
      const data = await call(
        `get property of comment ${commentId}`,
        () => client.issueCommentProperties.getCommentProperty({ commentId, propertyKey: MARKER_PROPERTY }),
        { nullOn404: true },
      );
      return data === null ? null : (parseAnswer(EntityPropertySchema, data, 'comment property').value ?? null);
    },
    async addComment(key, body, marker, access) {
      const data = await call(`add comment to ${key}`, () =>
        client.issueComments.addComment({
          issueIdOrKey: key,
          comment: asText(body),
          ...commentFields(marker, access),
        }),
      );
      return parseAnswer(CommentSchema, data, 'added comment');
    },
    async updateComment(key, id, body, marker, access) {
      const data = await call(`edit comment ${id} of ${key}`, () =>
        client.issueComments.updateComment({
          issueIdOrKey: key,
          id,
          comment: asText(body),
          ...commentFields(marker, access),
        }),
      );
      return parseAnswer(CommentSchema, data, 'edited comment');
    },
  };
}

/** Who may ask: a user's groups, a project's roles and each role's actors. */
function permissionCalls(client: Version2Client): Pick<JiraApi, 'userGroups' | 'projectRoles' | 'roleActors'> {
  return {
    async userGroups(user) {
      const what = `groups of ${user.displayName ?? 'a user'}`;
      // jira.js's v2 getUser takes only accountId; Data Center names users by username.
      const params = { username: user.name ?? '', expand: 'groups' };
      return groupNames(
        await call(what, () =>
          client.sendRequest<unknown>({ url: '/rest/api/2/user', method: 'GET', params }, undefined as never),
        ),
        what,
      );
    },
    async projectRoles(projectKey) {
      const what = `roles of project ${projectKey}`;
      return roleIds(await call(what, () => client.projectRoles.getProjectRoles({ projectIdOrKey: projectKey })), what);
    },
    async roleActors(projectKey, roleId) {
      const what = `role ${roleId} of project ${projectKey}`;
      return actorsOf(
        await call(what, () => client.projectRoles.getProjectRole({ projectIdOrKey: projectKey, id: roleId })),
        what,
      );
    },
  };
}
