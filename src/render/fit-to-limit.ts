import type { CommentDoc } from './compose-comment.js';
import { linkedHosts, sanitizeMarkdown } from './sanitize-markdown.js';

export interface Fitted {
  doc: CommentDoc;
  rendered: string;
  cut: boolean;
}

type Render = (doc: CommentDoc) => string;

/**
 * Fits a comment into `limit` characters of rendered output. Drops whole sections from the end
 * first, adding `cutNote(omitted)` as a last section (`omitted` = sections dropped or cut short);
 * if the first section alone is too long, cuts inside it at a line boundary, else a word
 * boundary, else anywhere, closing an open code fence. Always returns at most `limit` characters:
 * as a last resort the bare skeleton, or the rendered text sliced (only if even the heading and
 * footer alone exceed the limit).
 */
export function fitToLimit(
  doc: CommentDoc,
  render: Render,
  limit: number,
  cutNote: (omitted: number) => string,
): Fitted {
  const full = render(doc);
  if (full.length <= limit) return { doc, rendered: full, cut: false };
  const n = doc.sections.length;
  for (let keep = n - 1; keep >= 1; keep--) {
    const fitted = attempt({ ...doc, sections: [...doc.sections.slice(0, keep), cutNote(n - keep)] }, render, limit);
    if (fitted) return fitted;
  }
  const first = doc.sections[0];
  const inside = first ? cutInside(doc, first, render, limit, cutNote(n)) : null;
  return inside ?? skeleton(doc, render, limit, cutNote(n));
}

function attempt(doc: CommentDoc, render: Render, limit: number): Fitted | null {
  const rendered = render(doc);
  return rendered.length <= limit ? { doc, rendered, cut: true } : null;
}

function cutInside(doc: CommentDoc, section: string, render: Render, limit: number, note: string): Fitted | null {
  // The cut must not turn text into a link (e.g. a URL whose closing backtick was cut off):
  // re-sanitize, allowing only hosts the section already linked to.
  const allowedHosts = linkedHosts(section);
  const tryAt = (end: number): Fitted | null => {
    const head = sanitizeMarkdown(section.slice(0, end).trimEnd(), { allowedHosts });
    return head.trim() ? attempt({ ...doc, sections: [head, note] }, render, limit) : null;
  };
  const positions = (re: RegExp): number[] => [...section.matchAll(re)].map((m) => m.index);
  const byLine = longestFitting(positions(/\n/g), tryAt);
  if (byLine && byLine.at >= section.length / 2) return byLine.fitted;
  const byWord = longestFitting(positions(/ /g), tryAt);
  if (byLine && (!byWord || byLine.at >= byWord.at / 2)) return byLine.fitted;
  if (byWord) return byWord.fitted;
  const everyChar = Array.from({ length: section.length }, (_, i) => i + 1);
  return longestFitting(everyChar, tryAt)?.fitted ?? null;
}

/**
 * The longest cut that fits. Rendered length grows with the cut position almost monotonically
 * (closing a fence adds a few characters), so binary search, then step back until one fits.
 */
function longestFitting(
  positions: number[],
  tryAt: (end: number) => Fitted | null,
): { at: number; fitted: Fitted } | null {
  let lo = 0;
  let hi = positions.length - 1;
  let best = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (tryAt(positions[mid] ?? 0)) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  for (let i = best; i >= 0; i--) {
    const at = positions[i] ?? 0;
    const fitted = tryAt(at);
    if (fitted) return { at, fitted };
  }
  return null;
}

function skeleton(doc: CommentDoc, render: Render, limit: number, note: string): Fitted {
  const ladder: CommentDoc[] = [
    { ...doc, sections: [note] },
    { ...doc, sections: [] },
    { ...doc, preamble: '', sections: [] },
    { heading: doc.heading, preamble: '', sections: [], footer: '' },
  ];
  for (const candidate of ladder) {
    const fitted = attempt(candidate, render, limit);
    if (fitted) return fitted;
  }
  const last = ladder.at(-1) ?? doc;
  return { doc: last, rendered: render(last).slice(0, Math.max(0, limit)), cut: true };
}
