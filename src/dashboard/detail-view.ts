import type { Redactor } from '../redact.js';
import { redactUrlsIn } from '../redact.js';
import type { Investigation } from '../store/investigation.js';
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

/**
 * What the investigation page shows: the record as the API gives it, redacted again with the
 * configuration's secrets and URL passwords (pages are one more place secrets must not reach),
 * with its RCA and answers rendered from Markdown and sanitised.
 */
export function detailView(record: Investigation, redact: Redactor) {
  const inv = redact.deep(record);
  const clean = (text: string) => redactUrlsIn(redact(text));
  const rcaHtml = inv.rca ? renderMarkdown(clean(inv.rca), inv.linkHosts) : null;
  const answers = inv.conversation.map((c) => ({ ...c, answerHtml: c.answer ? renderMarkdown(clean(c.answer), inv.linkHosts) : null }));
  const lastAsk = inv.conversation.at(-1);
  const askOpen = inv.status === 'completed' && (!lastAsk || ['answered', 'failed', 'cancelled'].includes(lastAsk.status));
  const issue = inv.issue;
  return {
    inv, issue, rcaHtml, answers, askOpen,
    issueLink: sourceLink(issue?.url ?? null),
    tokens: inv.usage.promptTokens + inv.usage.completionTokens,
    writeBacks: inv.writeBacks.map((w) => ({ ...w, link: sourceLink(w.url) })),
    cancellable: ['queued', 'running', 'awaiting_approval'].includes(inv.status),
    toolCalls: inv.toolCalls.map((t, i) => ({ ...t, n: i + 1, outputUrl: t.outputTokens && t.toolCallId ? `/api/investigations/${inv.id}/outputs/${encodeURIComponent(t.toolCallId)}` : null })),
  };
}
