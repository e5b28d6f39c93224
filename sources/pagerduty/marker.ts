import { createHash } from 'node:crypto';
import type { IssueLocator } from '../../src/issue.js';
import type { CommentDoc } from '../../src/render/compose-comment.js';
import { rcaMarker } from '../../src/registration/rca-writer.js';

/** What every marker of ours starts with, whatever the incident: derived from the engine's format. */
export const MARKER_PREFIX = rcaMarker({ key: '', ref: {} });

const LINE = /^(\S+) sha=([0-9a-f]{12})$/;

/**
 * A short digest of the RCA itself (its sections), not of the footer: a new investigation that
 * reaches the same analysis has the same digest, so no second, identical note is added.
 */
export function rcaDigest(doc: Pick<CommentDoc, 'sections'>): string {
  return createHash('sha256').update(JSON.stringify(doc.sections)).digest('hex').slice(0, 12);
}

/**
 * The marker line every note of ours starts with: `lestrade:rca:<incident id> sha=<digest>`. It
 * goes first because PagerDuty trims long notes in incident.annotated webhooks, and notes
 * cannot be edited: the digest is how a later write sees that the RCA is unchanged.
 */
export function markerLine(locator: IssueLocator, digest: string): string {
  return `${rcaMarker(locator)} sha=${digest}`;
}

/** The digest in this note's marker line for this incident, or null when the note is not ours for it. */
export function markedDigest(content: string, locator: IssueLocator): string | null {
  const want = rcaMarker(locator);
  for (const line of content.split('\n')) {
    const m = LINE.exec(line.trim());
    if (m && m[1] === want) return m[2]!;
  }
  return null;
}

export function carriesAnyMarker(content: string): boolean {
  return content.includes(MARKER_PREFIX);
}
