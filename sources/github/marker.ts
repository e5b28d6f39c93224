import type { IssueLocator } from '../../src/issue.js';
import { rcaMarker } from '../../src/registration/rca-writer.js';

/** The hidden line at the end of every comment of ours, naming the issue it belongs to. */
export function markerComment(locator: IssueLocator): string {
  return `<!-- ${rcaMarker(locator)} -->`;
}

/** The marker's fixed start, derived from the engine's format so the two cannot drift apart. */
const MARKER_PREFIX = `<!-- ${rcaMarker({ key: '', ref: {} })}`;

/** Whether a comment carries any Lestrade marker (ours, or a copy of it). */
export function hasAnyMarker(body: string | null | undefined): boolean {
  return Boolean(body?.includes(MARKER_PREFIX));
}
