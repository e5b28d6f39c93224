import { z } from 'zod';
import { PermanentError } from '../../src/errors.js';
import type { IssueLocator } from '../../src/issue.js';
import type { CommentDoc } from '../../src/render/compose-comment.js';
import { rcaMarker, type RcaWriter, type WrittenComment } from '../../src/render/rca-writer.js';
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

/**
 * Our one RCA comment per issue. Each create carries the marker as comment property `lestrade`
 * (set in the same request, so a comment never exists without it) and in its footer text.
 */
export function jiraWriter(api: JiraApi, commentLimit: number): RcaWriter {
  const written = (key: string, c: Pick<JiraComment, 'id'>): WrittenComment => ({
    id: c.id,
    url: `${api.site}/browse/${key}?focusedCommentId=${c.id}`,
  });

  const isMarked = async (c: JiraComment, marker: string): Promise<boolean> => {
    const property = await api.getMarkerProperty(c.id);
    if (property !== null) return (property as { marker?: unknown }).marker === marker;
    return textOf(c.body).includes(marker);
  };

  const search = async (key: string, marker: string, me: SelfIdentity): Promise<JiraComment | null> => {
    for (let startAt: number | null = 0; startAt !== null;) {
      const page = await api.listComments(key, startAt);
      for (const c of page.comments) {
        if (isSelf(c.author, me) && (await isMarked(c, marker))) return c;
      }
      startAt = page.next;
    }
    return null;
  };

  return {
    async find(locator, knownId) {
      const key = issueKeyOf(locator);
      const me = await api.myself();
      if (knownId) {
        const known = await api.getComment(key, knownId);
        if (known && isSelf(known.author, me)) return written(key, known);
      }
      const found = await search(key, rcaMarker(locator), me);
      return found ? written(key, found) : null;
    },
    async create(locator, doc: CommentDoc) {
      const key = issueKeyOf(locator);
      const { body } = renderBody(api.deployment, doc, locator, commentLimit);
      return written(key, await api.addComment(key, body, rcaMarker(locator)));
    },
    async update(locator, existing, doc: CommentDoc) {
      const key = issueKeyOf(locator);
      const { body } = renderBody(api.deployment, doc, locator, commentLimit);
      return written(key, await api.updateComment(key, existing.id, body, rcaMarker(locator)));
    },
  };
}
