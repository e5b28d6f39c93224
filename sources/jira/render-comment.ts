import type { IssueLocator } from '../../src/issue.js';
import type { CommentDoc } from '../../src/render/compose-comment.js';
import { fitToLimit } from '../../src/render/fit-to-limit.js';
import { rcaMarker } from '../../src/registration/rca-writer.js';
import { codeSpan } from '../../src/render/sanitize-markdown.js';
import type { Deployment } from './config.js';
import { toAdf } from './render-adf.js';
import { toWikiMarkup } from './render-wiki.js';

const cutNote = (omitted: number) =>
  `_${omitted} section${omitted === 1 ? ' was' : 's were'} cut to fit Jira's comment limit; the full RCA is in Lestrade._`;

/** The footer names our marker in plain text too: the fallback when a comment property is missing. */
export function withMarker(doc: CommentDoc, locator: IssueLocator): CommentDoc {
  const marker = codeSpan(rcaMarker(locator));
  return { ...doc, footer: doc.footer ? `${doc.footer} · ${marker}` : marker };
}

/**
 * The comment body for the deployment, fitted to `limit`: ADF on Cloud, wiki markup on Data
 * Center. For ADF the length of its JSON counts against the limit: always at least the text's
 * length, so the comment fits whether Jira measures the document or its text.
 */
export function renderBody(
  deployment: Deployment,
  doc: CommentDoc,
  locator: IssueLocator,
  limit: number,
): { body: unknown; cut: boolean } {
  const marked = withMarker(doc, locator);
  if (deployment === 'cloud') {
    const fitted = fitToLimit(marked, (d) => JSON.stringify(toAdf(d)), limit, cutNote);
    return { body: toAdf(fitted.doc), cut: fitted.cut };
  }
  const fitted = fitToLimit(marked, (d) => toWikiMarkup(d), limit, cutNote);
  return { body: fitted.rendered, cut: fitted.cut };
}
