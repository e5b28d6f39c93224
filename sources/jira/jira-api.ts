import { z } from 'zod';
import { describeZodIssues, PermanentError } from '../../src/errors.js';
import { accessRequestFields, type CommentAccess } from './comment-access.js';
import type { Deployment } from './config.js';
import { jiraStatus, toTypedError } from './jira-errors.js';
import type { SelfIdentity } from './own-comments.js';
import type { IssueBean, JiraComment, JiraUser } from './schema.js';

/** The comment property carrying our marker, set when the comment is created. */
export const MARKER_PROPERTY = 'lestrade';

export interface SearchPage {
  issues: IssueBean[];
  /** Where the next page starts (Cloud: nextPageToken; Data Center: startAt), null after the last. */
  next: string | null;
}

export interface CommentPage {
  comments: JiraComment[];
  /** The startAt of the next page, null after the last. */
  next: number | null;
}

/**
 * The few Jira REST calls Lestrade makes, the same for Cloud (API v3, ADF bodies, token-paged
 * search/jql) and Data Center (API v2, wiki-markup bodies, startAt-paged search). Every failure
 * is typed (RetryableError or PermanentError); a missing issue, comment or property is null.
 */
export interface JiraApi {
  readonly deployment: Deployment;
  /** The site's base URL without a trailing slash. */
  readonly site: string;
  /** Lestrade's own account (GET /myself), asked once and remembered. */
  myself(): Promise<SelfIdentity>;
  getIssue(key: string, fields: string[]): Promise<IssueBean | null>;
  searchPage(
    jql: string,
    opts: { fields: string[]; maxResults: number; next?: string | null; reconcileIds?: string[] },
  ): Promise<SearchPage>;
  listComments(key: string, startAt: number): Promise<CommentPage>;
  getComment(key: string, id: string): Promise<JiraComment | null>;
  /** The value of comment property `lestrade`, null when the comment has none. */
  getMarkerProperty(commentId: string): Promise<unknown>;
  /**
   * body: ADF on Cloud, wiki markup on Data Center. The property `lestrade` holds our marker; `access`
   * (default: none) adds the comment's visibility and JSM's internal property, in the same request.
   */
  addComment(key: string, body: unknown, marker: string, access?: CommentAccess): Promise<JiraComment>;
  /** Sends the visibility and properties again: an edit without them may widen who sees the comment. */
  updateComment(key: string, id: string, body: unknown, marker: string, access?: CommentAccess): Promise<JiraComment>;
  /** The names of a user's groups (GET /user?expand=groups: accountId on Cloud, username on Data Center). */
  userGroups(user: JiraUser): Promise<string[]>;
  /** A project's roles by name, each with its id (GET /project/{key}/role). */
  projectRoles(projectKey: string): Promise<Map<string, number>>;
  /** Who is in a project role (GET /project/{key}/role/{id}): users (accountId or name) and groups. */
  roleActors(projectKey: string, roleId: number): Promise<RoleActors>;
}

export interface RoleActors {
  users: string[];
  groups: string[];
}

const GroupsSchema = z.object({
  groups: z.object({ items: z.array(z.object({ name: z.string().nullish() })).default([]) }).nullish(),
});
const RoleSchema = z.object({
  actors: z
    .array(
      z.object({
        type: z.string().nullish(),
        name: z.string().nullish(),
        actorUser: z.object({ accountId: z.string().nullish() }).nullish(),
        actorGroup: z.object({ name: z.string().nullish() }).nullish(),
      }),
    )
    .default([]),
});

export function groupNames(data: unknown, what: string): string[] {
  return (parseAnswer(GroupsSchema, data, what).groups?.items ?? []).map((g) => g.name ?? '').filter(Boolean);
}

/** Role ids from GET /project/{key}/role: { "Developers": "https://…/role/10001" }. */
export function roleIds(data: unknown, what: string): Map<string, number> {
  const links = parseAnswer(z.record(z.string(), z.string()), data, what);
  const out = new Map<string, number>();
  for (const [name, url] of Object.entries(links)) {
    const id = Number(/\/(\d+)\/?$/.exec(url)?.[1]);
    if (Number.isInteger(id)) out.set(name, id);
  }
  return out;
}

export function actorsOf(data: unknown, what: string): RoleActors {
  const { actors } = parseAnswer(RoleSchema, data, what);
  const groups = actors
    .filter((a) => a.type === 'atlassian-group-role-actor')
    .map((a) => a.actorGroup?.name ?? a.name ?? '');
  const users = actors
    .filter((a) => a.type === 'atlassian-user-role-actor')
    .map((a) => a.actorUser?.accountId ?? a.name ?? '');
  return { users: users.filter(Boolean), groups: groups.filter(Boolean) };
}

/** Runs one jira.js call; failures become typed errors, and a 404 becomes null where asked. */
export async function call<T>(what: string, fn: () => Promise<T>): Promise<T>;
export async function call<T>(what: string, fn: () => Promise<T>, opts: { nullOn404: true }): Promise<T | null>;
export async function call<T>(what: string, fn: () => Promise<T>, opts?: { nullOn404: true }): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if (opts?.nullOn404 && jiraStatus(err) === 404) return null;
    throw toTypedError(err, what);
  }
}

/** Validates an answer; a Jira that answers something else is a permanent problem, not a retry. */
export function parseAnswer<T extends z.ZodType>(schema: T, data: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(data);
  if (!parsed.success)
    throw new PermanentError(`unexpected answer from Jira (${what}): ${describeZodIssues(parsed.error.issues)}`);
  return parsed.data;
}

export function markerProperties(marker: string) {
  return [{ key: MARKER_PROPERTY, value: { marker } }];
}

/** The visibility and properties of a comment create or edit: our marker, then what `access` asks for. */
export function commentFields(marker: string, access: CommentAccess = { internal: false }) {
  const fields = accessRequestFields(access);
  return { ...fields, properties: [...markerProperties(marker), ...fields.properties] };
}

export const COMMENTS_PAGE_SIZE = 100;

export function nextCommentPage(startAt: number, got: number, total: number | undefined): number | null {
  const next = startAt + got;
  if (got === 0) return null;
  return total === undefined || next < total ? next : null;
}
