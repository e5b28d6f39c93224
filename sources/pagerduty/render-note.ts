import type { IssueLocator } from '../../src/issue.js';
import { toMarkdown, type CommentDoc } from '../../src/render/compose-comment.js';
import { fitToLimit } from '../../src/render/fit-to-limit.js';
import { defangUnvouchedUrls } from './defang.js';
import { markerLine, rcaDigest } from './marker.js';

const cutNote = (omitted: number) =>
  `(${omitted} section${omitted === 1 ? ' was' : 's were'} cut to fit the note size limit; the full RCA is in Lestrade.)`;

/**
 * The note: our marker line, then the RCA. PagerDuty shows notes as plain text, and Markdown is
 * the most readable plain text there is (## headings, - bullets); the model's text was already
 * sanitised (no images, HTML or foreign links), and URLs it left inert are defanged, as PagerDuty
 * would link them. Fitted to `limit` characters, marker included.
 */
export function renderNote(locator: IssueLocator, doc: CommentDoc, limit: number): { content: string; digest: string } {
  const digest = rcaDigest(doc);
  const head = `${markerLine(locator, digest)}\n\n`;
  const { rendered } = fitToLimit(doc, (d) => defangUnvouchedUrls(toMarkdown(d)), limit - head.length, cutNote);
  return { content: `${head}${rendered}`, digest };
}
