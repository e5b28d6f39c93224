import { Lexer } from 'marked';
import { codeSpan, sanitizeMarkdown } from './sanitize-markdown.js';
import { reusedNote, seenBeforeLine, type MemoryNoteInput } from './memory-note.js';

/** A comment as parts, so each vendor can render it and sizes can be cut at section boundaries. */
export interface CommentDoc {
  heading: string;
  preamble: string;
  /** Sanitized Markdown, one per top-level section of the RCA. */
  sections: string[];
  footer: string;
}

export interface ComposeInput {
  rca: string;
  issueKey: string;
  investigationId: string;
  resultsUrl?: string;
  allowedHosts: Set<string>;
  /** Keep @mentions and issue references live (writeBack.allowMentions). */
  allowMentions?: boolean;
  /** What memory found (docs/memory.md): "Seen before" under the RCA, a reused RCA said in the preamble. */
  memory?: MemoryNoteInput;
  /** What Lestrade's checks said of the remediations applied (docs/remediation.md, "Verified"), oldest first. */
  verifications?: readonly VerificationNote[];
}

/** One applied remediation's verification, as the comment says it. */
export interface VerificationNote {
  status: 'mitigated' | 'not_mitigated' | 'unknown';
  evidence: string;
}

const VERDICT_WORDS: Record<VerificationNote['status'], string> = {
  mitigated: 'Mitigated',
  not_mitigated: 'Not mitigated',
  unknown: 'Not verified',
};

/** "**Verified after the fix.** Mitigated: the alert resolved 3 min after …", one line per applied remediation. */
export function verificationSection(notes: readonly VerificationNote[]): string | null {
  if (notes.length === 0) return null;
  const lines = notes.map((n) => `- ${VERDICT_WORDS[n.status]}: ${n.evidence}`);
  return ['**Checked after the fix** (Lestrade looked whether it helped):', '', ...lines].join('\n');
}

export const COMMENT_HEADING = 'Lestrade — automated root-cause analysis';
export const COMMENT_PREAMBLE =
  'Written automatically by Lestrade from the issue and read-only tool output. It may be wrong: check before acting on it.';
const EMPTY_RCA = '_The investigation produced no analysis text._';

export function composeComment(input: ComposeInput): CommentDoc {
  const policy = { allowedHosts: input.allowedHosts, allowMentions: input.allowMentions === true };
  const rca = sanitizeMarkdown(input.rca, policy);
  const sections = splitSections(rca);
  // Last, so the RCA's first lines stay its headline and a comment cut to fit loses this first.
  const seen = input.memory && seenBeforeLine(input.memory);
  const verified = verificationSection(input.verifications ?? []);
  const reused = input.memory && reusedNote(input.memory, input.investigationId);
  const footer = [
    `Lestrade investigation ${codeSpan(input.investigationId)} for ${codeSpan(input.issueKey)}`,
    ...(input.resultsUrl ? [`full results: <${input.resultsUrl}>`] : []),
  ].join(' · ');
  return {
    heading: COMMENT_HEADING,
    preamble: reused ? `${COMMENT_PREAMBLE} ${reused}` : COMMENT_PREAMBLE,
    sections: [
      ...(sections.length ? sections : [EMPTY_RCA]),
      ...(verified ? [sanitizeMarkdown(verified, policy)] : []),
      ...(seen ? [sanitizeMarkdown(seen, policy)] : []),
    ],
    footer,
  };
}

/**
 * Splits Markdown before each top-level `#` or `##` heading; text before the first heading is
 * its own section. Leading indentation is kept: trimming it could turn an indented code block
 * into live Markdown.
 */
export function splitSections(md: string): string[] {
  const sections: string[] = [];
  let current = '';
  for (const token of Lexer.lex(md, { gfm: true })) {
    if (token.type === 'heading' && token.depth <= 2 && current.trim()) {
      sections.push(current);
      current = '';
    }
    current += token.raw;
  }
  sections.push(current);
  return sections.map((s) => s.replace(/^(?:[ \t]*\n)+/, '').trimEnd()).filter((s) => s.trim() !== '');
}

/**
 * The whole comment as Markdown. `cutNote` (trusted Markdown, e.g. "cut to fit…") goes after
 * the sections; empty parts are left out.
 */
export function toMarkdown(doc: CommentDoc, cutNote?: string): string {
  const parts = [
    doc.heading ? `### ${doc.heading}` : '',
    doc.preamble ? `_${doc.preamble}_` : '',
    ...doc.sections,
    cutNote ?? '',
  ].filter((p) => p.trim() !== '');
  if (doc.footer) parts.push('---', doc.footer);
  return parts.join('\n\n');
}
