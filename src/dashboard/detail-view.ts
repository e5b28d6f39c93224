import type { Redactor } from '../redact.js';
import { redactUrlsIn } from '../redact.js';
import type { Investigation } from '../store/investigation.js';
import type { SimilarPast } from '../records/past-incident.js';
import type { FeedbackEntry } from '../records/feedback.js';
import type { RemediationFacts } from '../quality/outcome.js';
import { keyParam } from './key-param.js';
import { renderMarkdown } from './render-markdown.js';

/** A link to the issue in its source: only an http(s) URL; anything else is shown as text. */
function sourceLink(url: string | null): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

/** Where the whole of an output too large for the model is kept, if it was. */
function keptOutputUrl(id: string, t: { outputTokens?: number; toolCallId?: string }): string | null {
  return t.outputTokens && t.toolCallId
    ? `/api/investigations/${id}/outputs/${encodeURIComponent(t.toolCallId)}`
    : null;
}

function followUpActive(status: string | undefined): boolean {
  return status === 'queued' || status === 'running' || status === 'awaiting_approval';
}

/**
 * What the investigation page shows: the record as the API gives it, redacted again with the
 * configuration's secrets and URL passwords (pages are one more place secrets must not reach),
 * with its RCA and answers rendered from Markdown and sanitised.
 */
export function detailView(
  record: Investigation & RemediationFacts,
  redact: Redactor,
  feedback: readonly FeedbackEntry[] = [],
) {
  const inv = redact.deep(record);
  const clean = (text: string) => redactUrlsIn(redact(text));
  const markdown = (text: string | null) => (text ? renderMarkdown(clean(text), inv.linkHosts) : null);
  const rcaHtml = markdown(inv.rca);
  const answers = inv.conversation.map((c) => ({ ...c, answerHtml: markdown(c.answer) }));
  const lastAsk = inv.conversation.at(-1);
  const askOpen =
    inv.status === 'completed' && (!lastAsk || ['answered', 'failed', 'cancelled'].includes(lastAsk.status));
  const issue = inv.issue;
  return {
    inv,
    issue,
    rcaHtml,
    answers,
    askOpen,
    issueLink: sourceLink(issue?.url ?? null),
    tokens: inv.usage.promptTokens + inv.usage.completionTokens,
    writeBacks: inv.writeBacks.map((w) => ({ ...w, link: sourceLink(w.url) })),
    cancellable: ['queued', 'running', 'awaiting_approval'].includes(inv.status),
    // What POST /rerun takes (actions/rerun.ts): a finished run, no follow-up in progress.
    rerunnable: ['completed', 'failed', 'cancelled'].includes(inv.status) && !followUpActive(lastAsk?.status),
    similar: (inv.similar ?? []).map(similarView),
    // People's verdicts, newest first as a page reads them (the API gives them oldest first).
    feedback: redact.deep([...feedback]).reverse(),
    verifications: verificationsOf(inv),
    planDone: (inv.plan ?? []).filter((p) => p.status === 'completed').length,
    toolCalls: inv.toolCalls.map((t) => ({ ...t, outputUrl: keptOutputUrl(inv.id, t), keyParam: keyParam(t.params) })),
  };
}

const VERIFICATION_LABELS = {
  mitigated: 'mitigated',
  not_mitigated: 'not mitigated',
  unknown: 'not verified',
} as const;

/** What Lestrade's checks said of the remediations applied (docs/remediation.md, "Verified"), oldest first. */
function verificationsOf(inv: RemediationFacts) {
  return (inv.remediation ?? []).flatMap((r) =>
    r.verification ? [{ ...r.verification, label: VERIFICATION_LABELS[r.verification.status] }] : [],
  );
}

const VERDICT_LABELS = { correct: 'confirmed correct', partly: 'partly correct', wrong: 'marked wrong' } as const;

/** A similar past incident as the page lists it: its verdict in words, whose root cause it is. */
function similarView(s: SimilarPast) {
  let causeLabel = 'Root cause it found';
  if (s.rootCauseBy === 'person') causeLabel = 'Root cause, as a person stated it';
  else if (s.verdict === 'wrong') causeLabel = 'Root cause it gave (marked wrong)';
  return {
    ...s,
    score: Math.round(s.score * 100) / 100,
    verdictLabel: s.verdict ? VERDICT_LABELS[s.verdict] : 'not rated',
    causeLabel,
  };
}
