import { z } from 'zod';
import { PermanentError, RetryableError } from '../../src/errors.js';
import type { IssueLocator } from '../../src/issue.js';
import type { RcaWriter, WriteContext, WrittenComment } from '../../src/registration/rca-writer.js';
import { statusOf } from './http-json.js';
import { markedDigest, renderNote, type RenderedNote } from './note-text.js';
import { isOwnNote, type AlertNote, type NotesApi } from './notes-api.js';
import { PendingNotes, type PendingNote } from './pending-notes.js';

export interface NoteWriterOptions {
  /** Largest note, in characters. */
  limit: number;
  now?: () => number;
  /** How soon to look again at a request still processing (default 2 s). */
  pollWaitMs?: number;
  /** How long a POST whose answer was lost gets to show up before the note is added again (default 30 s). */
  lostAnswerGraceMs?: number;
  /** How long an unknown request may stay unknown before it counts as lost (default 10 min). */
  requestExpiryMs?: number;
}

const RefSchema = z.object({ alertId: z.string().min(1) });

function alertIdOf(locator: IssueLocator): string {
  const parsed = RefSchema.safeParse(locator.ref);
  if (!parsed.success) throw new PermanentError(`not an alert locator: ${locator.key}`);
  return parsed.data.alertId;
}

/**
 * The RCA as an alert note, written at most once per distinct RCA. Ours = written by our account
 * and carrying this alert's marker line (`lestrade:rca:<key> sha=<digest>`). find() returns our latest note; update() writes
 * only when the digest changed: by editing it where the vendor can (JSM), else as a new note
 * (OpsGenie notes cannot be edited). An asynchronous add (202 + requestId) counts as written only
 * once the request succeeded; until then every attempt throws RetryableError and polls the same
 * request rather than adding again.
 */
export function noteWriter(api: NotesApi, opts: NoteWriterOptions): RcaWriter {
  const now = opts.now ?? Date.now;
  const pollWaitMs = opts.pollWaitMs ?? 2_000;
  const pending = new PendingNotes(now);
  const digests = new Map<string, string>();
  const written = (alertId: string, id: string): WrittenComment => ({ id, url: api.alertUrl(alertId) });
  const ctx: AddContext = {
    api,
    pending,
    pollWaitMs,
    grace: opts.lostAnswerGraceMs ?? 30_000,
    expiry: opts.requestExpiryMs ?? 600_000,
    written,
  };

  const digestOf = async (alertId: string, noteId: string, locator: IssueLocator): Promise<string | null> => {
    const known = digests.get(`${alertId}/${noteId}`);
    if (known) return known;
    const note = (await api.listNotes(alertId)).find((n) => n.id === noteId && isOwnNote(api, n));
    return note ? markedDigest(note.text, locator) : null;
  };

  return {
    async find(locator, knownId) {
      const alertId = alertIdOf(locator);
      const ours = oursOf(api, await api.listNotes(alertId), locator);
      // Editable notes: the stored one if it is still ours. Otherwise the latest: it says what the alert last got.
      const pick = (api.editNote && knownId ? ours.find((n) => n.id === knownId) : undefined) ?? ours.at(-1);
      if (!pick) return null;
      digests.set(`${alertId}/${pick.id}`, markedDigest(pick.text, locator)!);
      return written(alertId, pick.id);
    },
    async create(locator, doc, wctx) {
      return addOnce(ctx, alertIdOf(locator), locator, renderNote(locator, doc, opts.limit), wctx);
    },
    async update(locator, existing, doc, wctx) {
      const alertId = alertIdOf(locator);
      const note = renderNote(locator, doc, opts.limit);
      if ((await digestOf(alertId, existing.id, locator)) === note.sha) return existing;
      // Where notes can be edited, ours is; if someone deleted it meanwhile, a new one is added.
      const edited = api.editNote ? await api.editNote(alertId, existing.id, note.text) : null;
      return edited ? written(alertId, edited.id) : addOnce(ctx, alertId, locator, note, wctx);
    },
  };
}

/**
 * Our notes on the alert: written by our account AND carrying this alert's marker. Anyone can
 * paste the marker line; a note by someone else is never adopted, edited or taken as written.
 */
function oursOf(api: NotesApi, notes: readonly AlertNote[], locator: IssueLocator): AlertNote[] {
  return notes.filter((n) => isOwnNote(api, n) && markedDigest(n.text, locator) !== null);
}

interface AddContext {
  api: NotesApi;
  pending: PendingNotes;
  pollWaitMs: number;
  grace: number;
  expiry: number;
  written: (alertId: string, id: string) => WrittenComment;
}

async function addOnce(
  c: AddContext,
  alertId: string,
  locator: IssueLocator,
  note: RenderedNote,
  wctx?: WriteContext,
): Promise<WrittenComment> {
  const key = PendingNotes.key(alertId, note.sha);
  // This process's memory, else what an attempt elsewhere left (the engine keeps it in Redis).
  const earlier = c.pending.get(key) ?? c.pending.adopt(key, wctx?.resume ?? null);
  if (earlier?.requestId) return settle(c, alertId, locator, note, earlier);
  if (earlier && c.pending.ageMs(earlier) < c.grace) {
    // find() has just looked and not seen it; it may still be on its way.
    throw new RetryableError(
      `${c.api.vendor}: the answer to adding the note to alert ${alertId} was lost; waiting for the note to appear before adding it again`,
      { retryAfterMs: c.pollWaitMs, resumeToken: PendingNotes.token(key, earlier) },
    );
  }
  let out;
  try {
    out = await c.api.addNote(alertId, note.text);
  } catch (err) {
    // No answer, or a 5xx from a proxy in front of the vendor: it may have been accepted all the same.
    // A 429 was refused before anything happened.
    if (err instanceof RetryableError && statusOf(err) !== 429) {
      const lost = c.pending.set(key, null);
      throw new RetryableError(err.message, {
        cause: err,
        retryAfterMs: err.retryAfterMs,
        resumeToken: PendingNotes.token(key, lost),
      });
    }
    throw err;
  }
  if (out.kind === 'note') {
    c.pending.delete(key);
    return c.written(alertId, out.id);
  }
  return settle(c, alertId, locator, note, c.pending.set(key, out.requestId));
}

async function settle(
  c: AddContext,
  alertId: string,
  locator: IssueLocator,
  note: RenderedNote,
  p: PendingNote,
): Promise<WrittenComment> {
  const key = PendingNotes.key(alertId, note.sha);
  const requestId = p.requestId ?? '';
  const s = await c.api.requestStatus(requestId);
  if (s.state === 'success') {
    c.pending.delete(key);
    const found = oursOf(c.api, await c.api.listNotes(alertId), locator)
      .filter((n) => markedDigest(n.text, locator) === note.sha)
      .at(-1);
    return c.written(alertId, found?.id ?? `request:${requestId}`);
  }
  if (s.state === 'processing') {
    if (c.pending.ageMs(p) <= c.expiry) {
      throw new RetryableError(`${c.api.vendor} is still processing request ${requestId} (note on alert ${alertId})`, {
        retryAfterMs: c.pollWaitMs,
        resumeToken: PendingNotes.token(key, p),
      });
    }
    c.pending.delete(key);
    throw new RetryableError(
      `${c.api.vendor} still does not know request ${requestId} (note on alert ${alertId}): treated as lost, the note will be added again`,
      { retryAfterMs: c.pollWaitMs },
    );
  }
  c.pending.delete(key);
  if (s.permanent) throw new PermanentError(`${c.api.vendor} could not add the note to alert ${alertId}: ${s.reason}`);
  throw new RetryableError(
    `${c.api.vendor} failed request ${requestId} (note on alert ${alertId}: ${s.reason}); the note will be added again`,
    { retryAfterMs: c.pollWaitMs },
  );
}
