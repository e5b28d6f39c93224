import type { Handler, HandlerInput, HandlerResult } from './openapi-double.js';
import { firstString, intParam } from './paging.js';
import { adfError } from './jira-adf.js';
import { commentJson, issueJson, jiraError, jiraTime, selectFields, userJson, type Site } from './jira-shapes.js';
import { adfText, type AdfDoc, type JiraComment, type JiraIssue, type JiraState } from './jira-state.js';
import { cloudSearch } from './jira-search.js';

interface Ctx {
  state: JiraState;
  site: () => Site;
  commentLimit: number;
}

const ok = (body: unknown, status = 200): HandlerResult => ({ status, body });
const noIssue = (): HandlerResult => jiraError(404, ['Issue does not exist or you do not have permission to see it.']);
const noComment = (id: string): HandlerResult => jiraError(404, [`Can not find a comment for the id: ${id}.`]);
const expandOf = (i: HandlerInput): string => firstString(i.query.expand) ?? '';

interface CommentInput {
  body?: unknown;
  properties?: Array<{ key?: string; value?: unknown }>;
  visibility?: unknown;
}

/** Jira's own rules for a comment body, which the spec states only in prose; undefined when acceptable. */
function refuseBody(ctx: Ctx, body: unknown): HandlerResult | undefined {
  const empty =
    body === undefined ||
    body === null ||
    (typeof body === 'string' ? body.trim() === '' : !adfError(body) && adfText(body).trim() === '');
  if (empty)
    return { ...jiraError(400, [], { comment: 'Comment body can not be empty!' }), violation: 'comment body is empty' };
  if (ctx.state.deployment === 'cloud') {
    const bad = adfError(body);
    if (bad && (typeof body !== 'object' || (body as { type?: unknown }).type !== 'doc')) {
      return {
        ...jiraError(400, [], {
          comment: 'Operation value must be an Atlassian Document (see the Atlassian Document Format)',
        }),
        violation: `comment body: ${bad}`,
      };
    }
    if (bad) return { ...jiraError(400, ['INVALID_INPUT']), violation: `comment body: ${bad}` };
  }
  // Cloud's limit applies to the stored document; its JSON is the (conservative) measure here.
  const size = typeof body === 'string' ? [...body].length : JSON.stringify(body).length;
  if (size > ctx.commentLimit) {
    return jiraError(400, [], {
      comment: `The entered text is too long. It exceeds the allowed limit of ${ctx.commentLimit.toLocaleString('en-US')} characters.`,
    });
  }
  return undefined;
}

function applyProperties(c: JiraComment, props: CommentInput['properties']): void {
  for (const p of props ?? []) if (p.key) c.properties[p.key] = p.value;
}

/** Jira's limits on properties set with a comment (the same as PUT .../properties/{key}); undefined when acceptable. */
function refuseProperties(props: CommentInput['properties']): HandlerResult | undefined {
  for (const p of props ?? []) {
    if (!p.key) return jiraError(400, ['The property key can not be empty.']);
    if (p.key.length > 255) return jiraError(400, ['The property key can not be longer than 255 characters.']);
    if (JSON.stringify(p.value ?? null).length > 32768)
      return jiraError(400, ['The property value can not be longer than 32768 bytes.']);
  }
  return undefined;
}

/**
 * A restriction our account may not set (a role of the project it is not an actor of, a group it is
 * not in): Jira answers 400 under `commentLevel`. The spec checks only the shape (`type` role or group).
 */
function refuseVisibility(state: JiraState, issue: JiraIssue, visibility: unknown): HandlerResult | undefined {
  if (visibility === undefined || visibility === null) return undefined;
  const why = state.visibilityRefusal(issue.project, visibility);
  return why ? jiraError(400, [], { commentLevel: why }) : undefined;
}

export function jiraHandlers(ctx: Ctx): Record<string, Handler> {
  const { state } = ctx;
  const located = (i: HandlerInput): { issue: JiraIssue; comment?: JiraComment } | undefined => {
    const issue = state.issue(i.params.issueIdOrKey ?? '');
    if (!issue) return undefined;
    return { issue, comment: i.params.id === undefined ? undefined : issue.comments.find((c) => c.id === i.params.id) };
  };

  return {
    ...cloudSearch(state, ctx.site),

    getIssue: (i) => {
      const issue = state.issue(i.params.issueIdOrKey ?? '');
      return issue ? ok(issueJson(issue, selectFields(i.query.fields, 'all'), ctx.site())) : noIssue();
    },

    getComments: (i) => {
      const issue = state.issue(i.params.issueIdOrKey ?? '');
      if (!issue) return noIssue();
      const startAt = intParam(i.query, 'startAt', 0);
      const maxResults = intParam(i.query, 'maxResults', 100);
      const desc = firstString(i.query.orderBy) === '-created';
      // Jira lists only the comments the caller may see.
      const all = issue.comments
        .filter((c) => state.canSee(c))
        .sort((a, b) => (desc ? -1 : 1) * (a.created - b.created || Number(a.id) - Number(b.id)));
      const page = all.slice(startAt, startAt + maxResults);
      return ok({
        startAt,
        maxResults,
        total: all.length,
        comments: page.map((c) => commentJson(c, issue, ctx.site(), expandOf(i))),
      });
    },

    addComment: (i) => {
      const issue = state.issue(i.params.issueIdOrKey ?? '');
      if (!issue) return noIssue();
      const input = (i.body ?? {}) as CommentInput;
      const refused =
        refuseBody(ctx, input.body) ??
        refuseVisibility(state, issue, input.visibility) ??
        refuseProperties(input.properties);
      if (refused) return refused;
      const c = state.addComment({ issueKey: issue.key, body: input.body as string | AdfDoc });
      if (input.visibility) c.visibility = input.visibility;
      applyProperties(c, input.properties);
      return ok(commentJson(c, issue, ctx.site(), expandOf(i)), 201);
    },

    getComment: (i) => {
      const at = located(i);
      if (!at) return noIssue();
      return at.comment && state.canSee(at.comment)
        ? ok(commentJson(at.comment, at.issue, ctx.site(), expandOf(i)))
        : noComment(i.params.id ?? '');
    },

    updateComment: (i) => {
      const at = located(i);
      if (!at) return noIssue();
      if (!at.comment || !state.canSee(at.comment)) return noComment(i.params.id ?? '');
      const input = (i.body ?? {}) as CommentInput;
      const refused =
        refuseBody(ctx, input.body) ??
        refuseVisibility(state, at.issue, input.visibility) ??
        refuseProperties(input.properties);
      if (refused) return refused;
      Object.assign(at.comment, { body: input.body, updated: state.now(), updateAuthor: state.me });
      // The edit sets the visibility it carries. Whether Jira keeps or clears a restriction when an edit
      // omits `visibility` is not stated in the spec; the double takes the unsafe reading (cleared:
      // the comment becomes public), so a writer that forgets to send it again fails its tests.
      if (input.visibility) at.comment.visibility = input.visibility;
      else delete at.comment.visibility;
      applyProperties(at.comment, input.properties);
      return ok(commentJson(at.comment, at.issue, ctx.site(), expandOf(i)));
    },

    getCommentsByIds: (i) => {
      const ids = ((i.body ?? {}) as { ids: number[] }).ids;
      if (ids.length > 1000) return jiraError(400, ['The number of IDs cannot exceed 1000.']);
      const values = ids.flatMap((id) => {
        const c = state.comment(String(id));
        const issue = c && state.canSee(c) && state.issue(c.issueKey);
        return c && issue ? [commentJson(c, issue, ctx.site(), expandOf(i))] : [];
      });
      return ok({ isLast: true, maxResults: 1000, startAt: 0, total: values.length, values });
    },

    getCommentProperty: (i) => {
      const c = state.comment(i.params.commentId ?? '');
      if (!c || !state.canSee(c)) return noComment(i.params.commentId ?? '');
      const key = i.params.propertyKey ?? '';
      if (!(key in c.properties)) return jiraError(404, [`The property with key '${key}' does not exist.`]);
      return ok({ key, value: c.properties[key] });
    },

    setCommentProperty: (i) => {
      const c = state.comment(i.params.commentId ?? '');
      if (!c) return noComment(i.params.commentId ?? '');
      const key = i.params.propertyKey ?? '';
      if (key.length > 255) return jiraError(400, ['The property key can not be longer than 255 characters.']);
      if (JSON.stringify(i.body).length > 32768)
        return jiraError(400, ['The property value can not be longer than 32768 bytes.']);
      const existed = key in c.properties;
      c.properties[key] = i.body;
      return { status: existed ? 200 : 201 };
    },

    // Who may command Lestrade: a user's groups (GET /user?expand=groups) and a project's roles.
    getUser: (i) => {
      const cloud = state.deployment === 'cloud';
      const id = firstString(cloud ? i.query.accountId : i.query.username) ?? '';
      const groups = state.groups.get(id) ?? [];
      const who = cloud ? { accountId: id, accountType: 'atlassian' } : { name: id, key: `JIRAUSER-${id}` };
      return ok({
        self: `${ctx.site().base}/rest/api/${cloud ? 3 : 2}/user`,
        ...who,
        displayName: id,
        active: true,
        groups: {
          size: groups.length,
          items: groups.map((name) => ({ name, self: `${ctx.site().base}/group?groupname=${name}` })),
        },
      });
    },

    getProjectRoles: (i) => {
      const key = i.params.projectIdOrKey ?? '';
      const base = `${ctx.site().base}/rest/api/${state.deployment === 'cloud' ? 3 : 2}/project/${key}/role`;
      return ok(Object.fromEntries((state.roles.get(key) ?? []).map((r) => [r.name, `${base}/${r.id}`])));
    },

    getProjectRole: (i) => {
      const role = (state.roles.get(i.params.projectIdOrKey ?? '') ?? []).find((r) => String(r.id) === i.params.id);
      if (!role) return jiraError(404, ['The project role does not exist.']);
      const cloud = state.deployment === 'cloud';
      const actors = [
        ...role.users.map((u, n) => ({
          id: n + 1,
          displayName: u,
          type: 'atlassian-user-role-actor',
          ...(cloud ? { actorUser: { accountId: u } } : { name: u }),
        })),
        ...role.groups.map((g, n) => ({
          id: 100 + n,
          displayName: g,
          type: 'atlassian-group-role-actor',
          name: g,
          actorGroup: { name: g, displayName: g },
        })),
      ];
      return ok({ self: `${ctx.site().base}/role/${role.id}`, name: role.name, id: role.id, actors });
    },

    getCurrentUser: () =>
      ok({
        ...userJson(state.me, ctx.site()),
        locale: 'en_US',
        expand: 'groups,applicationRoles',
        groups: { size: 0, items: [] },
        applicationRoles: { size: 0, items: [] },
      }),

    getServerInfo: () => {
      const cloud = state.deployment === 'cloud';
      const version = cloud ? [1001, 0, 0] : [9, 12, 0];
      return ok({
        baseUrl: ctx.site().base,
        version: cloud ? '1001.0.0-SNAPSHOT' : '9.12.0',
        versionNumbers: version,
        deploymentType: cloud ? 'Cloud' : 'Server',
        buildNumber: cloud ? 100289 : 9120000,
        buildDate: '2024-01-01T00:00:00.000+0000',
        serverTime: jiraTime(state.now()),
        scmInfo: 'double',
        serverTitle: 'Jira',
      });
    },
  };
}
