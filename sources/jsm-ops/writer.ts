import type { RcaWriter } from '../../src/registration/rca-writer.js';
import { noteWriter, type NoteWriterOptions } from '../ops-alerts-common/note-writer.js';
import type { NotesApi } from '../ops-alerts-common/notes-api.js';
import { VENDOR, type JsmOpsApi } from './api.js';
import { alertUrl } from './map.js';

/**
 * JSM notes behind the shared note writer: add answers the note (200, per the spec) or a request
 * to poll (202 + requestId, as a third-party client reads it); notes can be edited (PATCH), so one
 * note per alert is kept and edited when the RCA changed.
 */
export function jsmOpsNotes(api: JsmOpsApi, site: string | null): NotesApi {
  return {
    vendor: VENDOR,
    author: api.author,
    listNotes: (alertId) => api.listNotes(alertId),
    addNote: (alertId, text) => api.addNote(alertId, text),
    requestStatus: (requestId) => api.requestStatus(requestId),
    editNote: (alertId, noteId, text) => api.editNote(alertId, noteId, text),
    alertUrl: (alertId) => alertUrl(site, alertId),
  };
}

export function jsmOpsWriter(api: JsmOpsApi, site: string | null, opts: NoteWriterOptions): RcaWriter {
  return noteWriter(jsmOpsNotes(api, site), opts);
}
