import type { Verdict } from '../../src/records/feedback.js';
import { NOTE_MAX, ROOT_CAUSE_MAX } from '../../src/records/feedback.js';
import { commandLines, type CommentDialect } from './approval-commands.js';

/**
 * `/lestrade correct [note]`, `/lestrade partly <note>` and `/lestrade wrong <the actual root cause>` in a ticket
 * comment (GitHub, Jira): a verdict on the RCA. The first such line outside code blocks, quotes, HTML
 * comments and `<details>` counts (as approval commands are read). Pure: who wrote it, and whether they may rate,
 * is the source's business.
 */
export interface FeedbackCommand {
  verdict: Verdict;
  rootCause?: string;
  note?: string;
}

const VERDICTS: readonly Verdict[] = ['correct', 'partly', 'wrong'];

export function parseFeedbackCommand(text: string, dialect: CommentDialect): FeedbackCommand | null {
  for (const line of commandLines(text, dialect)) {
    const m = /^\/lestrade\s+(correct|partly|wrong)(?:\s+(.*))?$/i.exec(line);
    if (!m) continue;
    const verdict = m[1]!.toLowerCase() as Verdict;
    if (!VERDICTS.includes(verdict)) continue;
    const rest = (m[2] ?? '').trim();
    if (!rest) return { verdict };
    return verdict === 'wrong'
      ? { verdict, rootCause: rest.slice(0, ROOT_CAUSE_MAX) }
      : { verdict, note: rest.slice(0, NOTE_MAX) };
  }
  return null;
}
