import { once } from '../common/once.js';
import type { Deployment } from './config.js';
import {
  actorsOf,
  call,
  commentFields,
  COMMENTS_PAGE_SIZE,
  groupNames,
  MARKER_PROPERTY,
  nextCommentPage,
  parseAnswer,
  roleIds,
  type JiraApi,
} from './jira-api.js';
import type { SelfIdentity } from './own-comments.js';
import {
  CommentSchema,
  EntityPropertySchema,
  IssueBeanSchema,
  PageOfCommentsSchema,
  UserSchema,
  type JiraUser,
} from './schema.js';

export const REQUEST_TIMEOUT_MS = 15_000;

/** The part of jira.js's Version2Client and Version3Client that both deployments call the same way. */
export interface JiraJsClient {
  myself: { getCurrentUser(): Promise<unknown> };
  issues: { getIssue(p: { issueIdOrKey: string; fields?: string[] }): Promise<unknown> };
  issueComments: {
    getComments(p: { issueIdOrKey: string; startAt: number; maxResults: number; orderBy: 'created' }): Promise<unknown>;
    getComment(p: { issueIdOrKey: string; id: string }): Promise<unknown>;
  };
  issueCommentProperties: { getCommentProperty(p: { commentId: string; propertyKey: string }): Promise<unknown> };
  projectRoles: {
    getProjectRoles(p: { projectIdOrKey: string }): Promise<unknown>;
    getProjectRole(p: { projectIdOrKey: string; id: number }): Promise<unknown>;
  };
}

/** The visibility and properties sent with a comment create or edit. */
export type CommentFields = ReturnType<typeof commentFields>;

/** Where Cloud and Data Center differ: who Lestrade is, search paging, the body's form, and user lookup. */
export interface JiraDialect {
  deployment: Deployment;
  /** Lestrade's own identity from GET /myself: the accountId on Cloud, name and key on Data Center. */
  self(me: JiraUser): SelfIdentity;
  searchPage: JiraApi['searchPage'];
  /** GET /user?expand=groups, unparsed. */
  getUserWithGroups(user: JiraUser): Promise<unknown>;
  /** POST a comment, unparsed; `body` is ADF on Cloud, wiki markup on Data Center. */
  addComment(key: string, body: unknown, fields: CommentFields): Promise<unknown>;
  /** PUT a comment, unparsed. */
  updateComment(key: string, id: string, body: unknown, fields: CommentFields): Promise<unknown>;
}

/** The JiraApi over a jira.js client, the deployment's differences taken from `d`. */
export function jiraJsApi(site: string, client: JiraJsClient, d: JiraDialect): JiraApi {
  return {
    deployment: d.deployment,
    site,
    myself: once(async () =>
      d.self(parseAnswer(UserSchema, await call('GET /myself', () => client.myself.getCurrentUser()), 'myself')),
    ),
    async getIssue(key, fields) {
      const data = await call(`get issue ${key}`, () => client.issues.getIssue({ issueIdOrKey: key, fields }), {
        nullOn404: true,
      });
      return data === null ? null : parseAnswer(IssueBeanSchema, data, `issue ${key}`);
    },
    searchPage: d.searchPage,
    ...commentCalls(client, d),
    ...permissionCalls(client, d),
  };
}

type CommentCall = 'listComments' | 'getComment' | 'getMarkerProperty' | 'addComment' | 'updateComment';

/** The issue's comments: paged, one by one, our marker property, and our writes. */
function commentCalls(client: JiraJsClient, d: JiraDialect): Pick<JiraApi, CommentCall> {
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
      const data = await call(`add comment to ${key}`, () => d.addComment(key, body, commentFields(marker, access)));
      return parseAnswer(CommentSchema, data, 'added comment');
    },
    async updateComment(key, id, body, marker, access) {
      const data = await call(`edit comment ${id} of ${key}`, () =>
        d.updateComment(key, id, body, commentFields(marker, access)),
      );
      return parseAnswer(CommentSchema, data, 'edited comment');
    },
  };
}

/** Who may ask: a user's groups, a project's roles and each role's actors. */
function permissionCalls(
  client: JiraJsClient,
  d: JiraDialect,
): Pick<JiraApi, 'userGroups' | 'projectRoles' | 'roleActors'> {
  return {
    async userGroups(user) {
      const what = `groups of ${user.displayName ?? 'a user'}`;
      return groupNames(await call(what, () => d.getUserWithGroups(user)), what);
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
