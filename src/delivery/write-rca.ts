import { PermanentError } from '../errors.js';
import type { IssueLocator } from '../issue.js';
import type { CommentDoc } from '../render/compose-comment.js';
import type { RcaWriter, WriteContext, WrittenComment } from '../registration/rca-writer.js';

export interface WriteOutcome {
  comment: WrittenComment;
  action: 'created' | 'updated';
}

/**
 * Writes the RCA idempotently: find our earlier comment (stored id, then marker) and edit it,
 * else create one. A crash or dropped connection after the vendor accepted a create is healed
 * by the next attempt finding that comment by its marker.
 */
export async function writeRca(
  writer: RcaWriter,
  locator: IssueLocator,
  doc: CommentDoc,
  knownId: string | null,
  ctx: WriteContext = { resume: null },
): Promise<WriteOutcome> {
  const refusal = await writer.refusal?.(locator);
  if (refusal) throw new WriteRefusedError(refusal);
  const existing = await writer.find(locator, knownId);
  if (existing) return { comment: await writer.update(locator, existing, doc, ctx), action: 'updated' };
  return { comment: await writer.create(locator, doc, ctx), action: 'created' };
}

/** Writing is not allowed here by policy (public repository, untrusted target): never retried. */
export class WriteRefusedError extends PermanentError {}
