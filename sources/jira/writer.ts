import { z } from 'zod';
import { PermanentError } from '../../src/errors.js';
import type { IssueLocator } from '../../src/issue.js';
import type { CommentDoc } from '../../src/render/compose-comment.js';
import { rcaMarker, type RcaWriter, type WrittenComment } from '../../src/registration/rca-writer.js';
import { accessFor, keepOnEdit, projectOfLocator, type CommentAccess, type Visibility } from './comment-access.js';
import type { JiraProject } from './config.js';
import type { JiraApi } from './jira-api.js';
import { isSelf, type SelfIdentity } from './own-comments.js';
import { renderBody } from './render-comment.js';
import { IssueKeySchema, type JiraComment } from './schema.js';
import { textOf } from './text-of.js';

const RefSchema = z.object({ issueKey: IssueKeySchema });

function issueKeyOf(locator: IssueLocator): string {
  const parsed = RefSchema.safeParse(locator.ref);
  if (!parsed.success) throw new PermanentError(`not a Jira issue locator: ${locator.key}`);
  return parsed.data.issueKey;
}

/** A comment's visibility as a request can send it again, or null when it has none. */
function visibilityOf(c: Pick<JiraComment, 'visibility'> | null): Visibility | null {
  const v = c?.visibility;
  if (!v || (!v.value && !v.identifier)) return null;
  return {
    type: v.type,
    ...(v.value ? { value: v.value } : {}),
    ...(v.identifier ? { identifier: v.identifier } : {}),
  };
}

/** A 400 on a restricted comment most likely refuses the restriction: say which setting made it. */
function withVisibilityHint(err: unknown, access: CommentAccess): unknown {
  const v = access.visibility;
  if (!(err instanceof PermanentError) || !v || !/^Jira answered HTTP 400\b/.test(err.message)) return err;
  const from = access.configKey ?? 'the visibility the comment already has';
  return new PermanentError(
    `${err.message} (the comment is restricted by ${from} (${v.type} "${v.value ?? v.identifier}"): ` +
      `the ${v.type} must exist${v.type === 'role' ? ' in the project' : ''} and Lestrade's account must be in it)`,
    { cause: err },
  );
}

/** Who sees comments on one issue: the project's settings, and its type from the locator or, for older locators, Jira. */
async function accessOf(
  api: JiraApi,
  projects: Readonly<Record<string, JiraProject>>,
  locator: IssueLocator,
): Promise<CommentAccess> {
  const { project, projectType } = projectOfLocator(locator);
  if (projectType !== null) return accessFor(projects, project, projectType);
  const issue = await api.getIssue(issueKeyOf(locator), ['project']);
  return accessFor(projects, project, issue?.fields.project?.projectTypeKey ?? null);
}

async function searchOurs(api: JiraApi, key: string, marker: string, me: SelfIdentity): Promise<JiraComment | null> {
  const isMarked = async (c: JiraComment): Promise<boolean> => {
    const property = await api.getMarkerProperty(c.id);
    if (property !== null) return (property as { marker?: unknown }).marker === marker;
    return textOf(c.body).includes(marker);
  };
  for (let startAt: number | null = 0; startAt !== null;) {
    const page = await api.listComments(key, startAt);
    for (const c of page.comments) {
      if (isSelf(c.author, me) && (await isMarked(c))) return c;
    }
    startAt = page.next;
  }
  return null;
}

/**
 * Our one RCA comment per issue. Each create carries the marker as comment property `lestrade`
 * (set in the same request, so a comment never exists without it) and in its footer text, and
 * the project's access: `visibility` and, on service desks, JSM's internal property. An edit sends
 * them again (keeping a restriction the comment already has when none is configured).
 */
export function jiraWriter(
  api: JiraApi,
  commentLimit: number,
  projects: Readonly<Record<string, JiraProject>> = {},
): RcaWriter {
  /** The visibility of the comments find() returned, so the edit that follows need not ask again. */
  const seen = new WeakMap<WrittenComment, Visibility | null>();
  const written = (key: string, c: JiraComment): WrittenComment => {
    const out = { id: c.id, url: `${api.site}/browse/${key}?focusedCommentId=${c.id}` };
    seen.set(out, visibilityOf(c));
    return out;
  };
  const current = async (key: string, existing: WrittenComment) =>
    seen.has(existing) ? seen.get(existing) : visibilityOf(await api.getComment(key, existing.id));

  return {
    async find(locator, knownId) {
      const key = issueKeyOf(locator);
      const me = await api.myself();
      if (knownId) {
        const known = await api.getComment(key, knownId);
        if (known && isSelf(known.author, me)) return written(key, known);
      }
      const found = await searchOurs(api, key, rcaMarker(locator), me);
      return found ? written(key, found) : null;
    },
    async create(locator, doc: CommentDoc) {
      const key = issueKeyOf(locator);
      const { body } = renderBody(api.deployment, doc, locator, commentLimit);
      const access = await accessOf(api, projects, locator);
      const added = await api.addComment(key, body, rcaMarker(locator), access).catch((err: unknown) => {
        throw withVisibilityHint(err, access);
      });
      return written(key, added);
    },
    async update(locator, existing, doc: CommentDoc) {
      const key = issueKeyOf(locator);
      const { body } = renderBody(api.deployment, doc, locator, commentLimit);
      const access = keepOnEdit(await accessOf(api, projects, locator), await current(key, existing));
      const edited = await api
        .updateComment(key, existing.id, body, rcaMarker(locator), access)
        .catch((err: unknown) => {
          throw withVisibilityHint(err, access);
        });
      return written(key, edited);
    },
  };
}
