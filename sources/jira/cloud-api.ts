import { Version3Client, type Version3Models } from 'jira.js';
import { z } from 'zod';
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
  nextPageToken: z.string().nullish(),
  isLast: z.boolean().optional(),
});

type CommentCall = 'listComments' | 'getComment' | 'getMarkerProperty' | 'addComment' | 'updateComment';

export const REQUEST_TIMEOUT_MS = 15_000;

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
  return {
    deployment: 'cloud',
    site,
    myself: once(async () => {
      const me = parseAnswer(UserSchema, await call('GET /myself', () => client.myself.getCurrentUser()), 'myself');
      return { accountId: me.accountId, timeZone: me.timeZone };
    }),
    async getIssue(key, fields) {
      const data = await call(`get issue ${key}`, () => client.issues.getIssue({ issueIdOrKey: key, fields }), {
        nullOn404: true,
      });
      return data === null ? null : parseAnswer(IssueBeanSchema, data, `issue ${key}`);
    },
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
    ...commentCalls(client),
    ...permissionCalls(client),
  };
}

const asDoc = (body: unknown) => body as Version3Models.Document;

/** The issue's comments: paged, one by one, our marker property, and our writes. */
function commentCalls(client: Version3Client): Pick<JiraApi, CommentCall> {
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
          comment: asDoc(body),
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
          body: asDoc(body),
          ...commentFields(marker, access),
        }),
      );
      return parseAnswer(CommentSchema, data, 'edited comment');
    },
  };
}

/** Who may ask: a user's groups, a project's roles and each role's actors. */
function permissionCalls(client: Version3Client): Pick<JiraApi, 'userGroups' | 'projectRoles' | 'roleActors'> {
  return {
    async userGroups(user) {
      const what = `groups of ${user.displayName ?? 'a user'}`;
      return groupNames(
        await call(what, () => client.users.getUser({ accountId: user.accountId ?? '', expand: 'groups' })),
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
