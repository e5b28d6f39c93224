import type { IssueLocator } from '../issue.js';
import type { CommentDoc } from '../render/compose-comment.js';

/** A comment (or note) Lestrade wrote, as the vendor knows it. */
export interface WrittenComment {
  id: string;
  url: string | null;
}

/** What one write attempt knows from the attempts before it. */
export interface WriteContext {
  /** The resumeToken of the last RetryableError this writer threw for this issue, if any. */
  resume: string | null;
}

/**
 * A source's write-back. Every method is one vendor request (or a short series of reads);
 * failures are typed: RetryableError (429, 5xx, network, carrying the vendor's retry time)
 * or PermanentError (other 4xx, with the vendor's reason). None of them sleeps or retries a write.
 */
export interface RcaWriter {
  /**
   * Our earlier comment on this issue: the one with the stored id if it still exists, else the
   * one carrying our marker, else null.
   */
  find(locator: IssueLocator, knownId: string | null): Promise<WrittenComment | null>;
  create(locator: IssueLocator, doc: CommentDoc, ctx?: WriteContext): Promise<WrittenComment>;
  update(locator: IssueLocator, existing: WrittenComment, doc: CommentDoc, ctx?: WriteContext): Promise<WrittenComment>;
  /** Why writing to this issue is refused (e.g. a public repository not allowed in config), or null. */
  refusal?(locator: IssueLocator): Promise<string | null>;
}

/** The text every comment of ours carries, identifying Lestrade and the issue. */
export function rcaMarker(locator: IssueLocator): string {
  return `lestrade:rca:${locator.key}`;
}
