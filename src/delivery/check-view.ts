import type { CheckOutcome } from '../records/check-result.js';
import { sanitizeMarkdown } from '../render/sanitize-markdown.js';
import type { CheckView } from './destination.js';

const SUMMARY_CHARS = 300;

/** A check run's outcome as destinations get it: the model's summary and evidence through the RCA's sanitiser. */
export function checkViewOf(outcome: CheckOutcome, allowedHosts: Set<string>, allowMentions: boolean): CheckView {
  const clean = (text: string) => sanitizeMarkdown(text, { allowedHosts, allowMentions }).trim();
  const summary = clean(outcome.summary).split('\n')[0]!.slice(0, SUMMARY_CHARS);
  const deploy = outcome.deploy;
  return {
    name: outcome.name,
    status: outcome.status,
    previous: outcome.previous ?? null,
    summary,
    evidence: outcome.evidence.map(clean).filter(Boolean),
    deploy: deploy ? { service: deploy.service, version: deploy.version ?? null, id: deploy.id } : null,
    headline: checkHeadline(outcome.name, outcome.status, outcome.previous ?? null, summary, deploy),
  };
}

/**
 * "checkout: pass → fail — p99 820 ms" (a transition), "checkout: fail — …" (no earlier status), or after a deploy
 * "checkout v2.41.0: fail — …" (the deploy's service and version).
 */
export function checkHeadline(
  name: string,
  status: string,
  previous: string | null,
  summary: string,
  deploy?: CheckOutcome['deploy'],
): string {
  const who = deploy ? [deploy.service, deploy.version].filter(Boolean).join(' ') : name;
  const what = !deploy && previous && previous !== status ? `${previous} → ${status}` : status;
  return `${who}: ${what}${summary ? ` — ${summary}` : ''}`;
}
