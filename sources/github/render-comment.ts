import type { IssueLocator } from '../../src/issue.js';
import { toMarkdown, type CommentDoc } from '../../src/render/compose-comment.js';
import { fitToLimit } from '../../src/render/fit-to-limit.js';
import { markerComment } from './marker.js';

/** GitHub refuses comment bodies over 65,536 characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;

const cutNote = (omitted: number) =>
  `_${omitted} section${omitted === 1 ? '' : 's'} cut to fit GitHub's comment size limit; the full analysis is in Lestrade._`;

/**
 * The comment body: the RCA as Markdown, fitted to GitHub's limit, and our hidden marker last
 * (so a later attempt finds this comment even when its id was never stored).
 */
export function renderComment(locator: IssueLocator, doc: CommentDoc, limit = GITHUB_COMMENT_LIMIT): string {
  const marker = `\n\n${markerComment(locator)}`;
  const { rendered } = fitToLimit(doc, (d) => toMarkdown(d), limit - marker.length, cutNote);
  return `${rendered}${marker}`;
}
