import type { RcaWriter } from '../../src/registration/rca-writer.js';
import { noteWriter, type NoteWriterOptions } from '../ops-alerts-common/note-writer.js';
import type { NotesApi } from '../ops-alerts-common/notes-api.js';
import { VENDOR, type OpsgenieApi } from './api.js';
import { alertUrl } from './map.js';

/**
 * OpsGenie's notes behind the shared note writer: adding is asynchronous (202 + requestId, then
 * GET /v2/alerts/requests/{id}), and notes cannot be edited, so a changed RCA is a new note.
 */
export function opsgenieNotes(api: OpsgenieApi, apiUrl: string, noteUser: string): NotesApi {
  return {
    vendor: VENDOR,
    author: noteUser,
    listNotes: (alertId) => api.listNotes(alertId),
    addNote: async (alertId, text) => ({ kind: 'request', requestId: await api.addNote(alertId, text, noteUser) }),
    requestStatus: (requestId) => api.requestStatus(requestId),
    alertUrl: (alertId) => alertUrl(apiUrl, alertId),
  };
}

export function opsgenieWriter(api: OpsgenieApi, apiUrl: string, noteUser: string, opts: NoteWriterOptions): RcaWriter {
  return noteWriter(opsgenieNotes(api, apiUrl, noteUser), opts);
}
