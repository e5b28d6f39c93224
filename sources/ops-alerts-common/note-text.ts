import { createHash } from 'node:crypto';
import type { IssueLocator } from '../../src/issue.js';
import { toMarkdown, type CommentDoc } from '../../src/render/compose-comment.js';
import { fitToLimit } from '../../src/render/fit-to-limit.js';
import { rcaMarker } from '../../src/registration/rca-writer.js';

/** OpsGenie's note limit (25,000 characters); JSM declares the same for a new alert's note. */
export const NOTE_LIMIT = 25_000;

/** What every marker of ours starts with, whatever the alert. */
const MARKER_PREFIX = rcaMarker({ key: '', ref: {} });
const MARKER_LINE = /^lestrade:rca:(\S+) sha=([0-9a-f]{12})$/;

const cutNote = (omitted: number) =>
  `_${omitted} section${omitted === 1 ? ' was' : 's were'} cut to fit the note size limit; the full RCA is in Lestrade._`;

/**
 * A short digest of the RCA itself (its sanitized sections, not the footer naming the
 * investigation): the same analysis from another investigation has the same digest, so
 * notes, which cannot always be edited, are added only when the RCA changed.
 */
export function rcaDigest(doc: CommentDoc): string {
  return createHash('sha256').update(doc.sections.join('\n\n')).digest('hex').slice(0, 12);
}

/** The last line of every note of ours: `lestrade:rca:<key> sha=<12 hex>`. */
export function markerLine(locator: IssueLocator, sha: string): string {
  return `${rcaMarker(locator)} sha=${sha}`;
}

export interface RenderedNote {
  text: string;
  sha: string;
}

/** The note: the RCA as Markdown fitted to `limit`, and the marker line last. */
export function renderNote(locator: IssueLocator, doc: CommentDoc, limit = NOTE_LIMIT): RenderedNote {
  const sha = rcaDigest(doc);
  const marker = `\n\n${markerLine(locator, sha)}`;
  const { rendered } = fitToLimit(doc, (d) => toMarkdown(d), limit - marker.length, cutNote);
  return { text: `${rendered}${marker}`, sha };
}

/** The digest in this alert's marker line of a note, or null when the note is not ours for this key. */
export function markedDigest(text: string, locator: IssueLocator): string | null {
  for (const line of text.split('\n').reverse()) {
    const m = MARKER_LINE.exec(line.trim());
    if (m && m[1] === locator.key) return m[2]!;
  }
  return null;
}

/** Whether a note carries any Lestrade marker (ours, or a copy of it). */
export function carriesAnyMarker(text: string): boolean {
  return text.includes(MARKER_PREFIX);
}
