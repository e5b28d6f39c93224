import { PermanentError, RetryableError } from '../../src/errors.js';
import type { IssueLocator } from '../../src/issue.js';
import type { CommentDoc } from '../../src/render/compose-comment.js';
import {
  rcaMarker,
  type RcaWriter,
  type WriteContext,
  type WrittenComment,
} from '../../src/registration/rca-writer.js';

/**
 * An RcaWriter over an in-memory comment list, for engine tests of the write-back job (lock,
 * stored id, supersession, retry timing). It is our own interface, not a vendor: the vendors'
 * writers are tested against their OpenAPI doubles.
 */
export class RecordingWriter implements RcaWriter {
  comments: Array<{ id: string; issue: string; body: string; marker: string }> = [];
  finds: Array<{ issue: string; knownId: string | null }> = [];
  /** Errors thrown by the next create/update calls, in order. */
  failures: Array<RetryableError | PermanentError> = [];
  refuse: string | null = null;
  /** The resume token each create/update was handed. */
  resumes: Array<string | null> = [];
  private next = 1;

  async refusal(): Promise<string | null> {
    return this.refuse;
  }

  async find(locator: IssueLocator, knownId: string | null): Promise<WrittenComment | null> {
    this.finds.push({ issue: locator.key, knownId });
    const hit =
      this.comments.find((c) => c.id === knownId) ?? this.comments.find((c) => c.marker === rcaMarker(locator));
    return hit ? { id: hit.id, url: `https://tickets.test/${hit.id}` } : null;
  }

  async create(locator: IssueLocator, doc: CommentDoc, ctx?: WriteContext): Promise<WrittenComment> {
    this.resumes.push(ctx?.resume ?? null);
    this.fail();
    const id = String(this.next++);
    this.comments.push({ id, issue: locator.key, body: render(doc), marker: rcaMarker(locator) });
    return { id, url: `https://tickets.test/${id}` };
  }

  async update(
    _locator: IssueLocator,
    existing: WrittenComment,
    doc: CommentDoc,
    ctx?: WriteContext,
  ): Promise<WrittenComment> {
    this.resumes.push(ctx?.resume ?? null);
    this.fail();
    const c = this.comments.find((x) => x.id === existing.id)!;
    c.body = render(doc);
    return existing;
  }

  private fail() {
    const err = this.failures.shift();
    if (err) throw err;
  }
}

function render(doc: CommentDoc): string {
  return [doc.heading, doc.preamble, ...doc.sections, doc.footer].join('\n\n');
}
