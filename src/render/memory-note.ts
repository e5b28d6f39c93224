import type { ReusedFrom, SimilarPast } from '../records/past-incident.js';
import { codeSpan } from './sanitize-markdown.js';

/** The longest past root cause quoted in a comment (characters); the past investigation's page has the rest. */
export const SEEN_BEFORE_CAUSE_CHARS = 300;

/** What memory found for an investigation, and where the dashboard shows a past one. */
export interface MemoryNoteInput {
  similar: readonly SimilarPast[];
  reused: ReusedFrom | null;
  /** The dashboard's page of an investigation (server.publicUrl), when there is one. */
  pageUrl: (id: string) => string | undefined;
}

/**
 * "Seen before: <n> times, last <date> — <root cause> (confirmed by <who>)" when a similar past incident's RCA
 * was confirmed correct, linking that one's page; null otherwise. `n` counts the similar past incidents found
 * (at most memory.maxSimilar), `last` is the newest of them; the root cause is the best confirmed one's.
 * Markdown, unsanitised: the root cause is third-party text, so the caller sanitises the whole line.
 */
export function seenBeforeLine(m: MemoryNoteInput): string | null {
  const confirmed = m.similar.find((s) => s.verdict === 'correct');
  if (!confirmed) return null;
  const times = m.similar.length;
  const last = m.similar.reduce((a, s) => (s.at > a ? s.at : a), '').slice(0, 10);
  const cause = clipLine(confirmed.rootCause, SEEN_BEFORE_CAUSE_CHARS);
  const who = confirmed.confirmedBy ? ` (confirmed by ${confirmed.confirmedBy.replace(/\s+/g, ' ')})` : ' (confirmed)';
  return `**Seen before:** ${times} ${times === 1 ? 'time' : 'times'}, last ${last} — ${cause}${who} · ${pastLink(m, confirmed.id)}`;
}

/**
 * Said first when the RCA is a confirmed predecessor's, written back without running the model: which one,
 * and how to have the model investigate this one after all. Plain text (ids only).
 */
export function reusedNote(m: MemoryNoteInput, ownId: string): string | null {
  if (!m.reused) return null;
  return (
    `This analysis is reused from investigation ${m.reused.from}, whose analysis of the same alert people ` +
    `confirmed correct: no model ran for this one. To investigate it afresh, re-run it (the Re-run button, ` +
    `or lestrade rerun ${ownId}).`
  );
}

function pastLink(m: MemoryNoteInput, id: string): string {
  const url = m.pageUrl(id);
  return url ? `[past investigation](<${url}>)` : `past investigation ${codeSpan(id)}`;
}

/** One line: whitespace runs as one space, cut at `max` characters with "…". */
function clipLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1).trimEnd()}…`;
}
