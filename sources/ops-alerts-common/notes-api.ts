/** One note on an alert, as the writer needs it. */
export interface AlertNote {
  /** OpsGenie: the note's `offset` (notes have no id); JSM: its id. */
  id: string;
  text: string;
  /** Who added it, as the vendor names them (the note's `owner`). */
  owner: string;
}

/** What adding a note answered: the note itself (JSM per its spec), or an asynchronous request to poll. */
export type AddNoteOutcome = { kind: 'note'; id: string } | { kind: 'request'; requestId: string };

/**
 * Where an asynchronous request stands (GET …/alerts/requests/{id}). Both vendors answer 404
 * until the request is processed, so "processing" is also what an unknown request looks like.
 */
export type RequestState =
  { state: 'success' } | { state: 'processing' } | { state: 'failed'; reason: string; permanent: boolean };

/** The note calls of one vendor; every failure is a typed error (RetryableError or PermanentError). */
export interface NotesApi {
  readonly vendor: string;
  /**
   * The `owner` our own notes carry (OpsGenie: the `user` we add them as; JSM: the API account's
   * e-mail). A note is ours only when written by it and carrying our marker.
   */
  readonly author: string;
  /** Every note on the alert, oldest first, all pages. */
  listNotes(alertId: string): Promise<AlertNote[]>;
  addNote(alertId: string, text: string): Promise<AddNoteOutcome>;
  requestStatus(requestId: string): Promise<RequestState>;
  /**
   * Edits a note in place where the vendor can (JSM); null when the note is gone. Without it a
   * changed RCA is a new note (OpsGenie).
   */
  editNote?(alertId: string, noteId: string, text: string): Promise<{ id: string } | null>;
  /** The alert in the vendor's web app, when known. */
  alertUrl(alertId: string): string | null;
}

/** Written by our account: owners compare without case or surrounding space. */
export function isOwnNote(api: Pick<NotesApi, 'author'>, note: Pick<AlertNote, 'owner'>): boolean {
  return note.owner.trim().toLowerCase() === api.author.trim().toLowerCase();
}

/** A request failure that says the alert is gone: adding the note again cannot help. */
export function isPermanentRequestFailure(reason: string): boolean {
  return /does not exist|not found|deleted/i.test(reason);
}

/**
 * A processed request says isSuccess; one not yet processed is a 404 ("Request not found. It
 * might not be processed, yet.", handled by the caller) or, defensively, a status that says it
 * is still under way.
 */
export function requestStateOf(isSuccess: boolean | null | undefined, status: string | null | undefined): RequestState {
  if (isSuccess === true) return { state: 'success' };
  if (/^(processing|pending|queued|in progress)/i.test(status ?? '')) return { state: 'processing' };
  const reason = status || 'failed without a reason';
  return { state: 'failed', reason, permanent: isPermanentRequestFailure(reason) };
}
