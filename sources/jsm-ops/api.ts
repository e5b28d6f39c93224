import { once } from '../common/once.js';
import { callApi, parseAnswer, queryParam, type CallOptions, type JsonCall } from '../ops-alerts-common/http-json.js';
import {
  requestStateOf,
  type AddNoteOutcome,
  type AlertNote,
  type RequestState,
} from '../ops-alerts-common/notes-api.js';
import {
  AddNoteAnswerSchema,
  JsmAlertSchema,
  JsmNoteSchema,
  jsmReason,
  ListAlertsSchema,
  ListNotesSchema,
  RequestStatusSchema,
  type JsmAlert,
} from './schema.js';
import { lookUpCloudId } from './cloud-id.js';
import { pathSegment } from '../../src/outbound-http/path-segment.js';

export const VENDOR = 'JSM Operations';
const PAGE = 100;
const MAX_NOTE_PAGES = 100;

export interface JsmOpsConnection {
  apiUrl: string;
  /** The site; needed only to look the cloudId up. */
  site: string | null;
  cloudId?: string;
  email: string;
  apiToken: string;
  timeoutMs: number;
}

/**
 * The JSM Operations alert calls Lestrade makes (…/jsm/ops/api/{cloudId}/v1/alerts…), over Node's
 * fetch with basic auth (Atlassian account email + API token), timeouts, zod-checked answers and
 * typed failures. The cloudId is configured, or looked up once from the site's /_edge/tenant_info.
 */
export class JsmOpsApi {
  readonly instance: string;
  readonly cloudId: () => Promise<string>;

  constructor(private readonly c: JsmOpsConnection) {
    this.instance = c.site ? new URL(c.site).host : new URL(c.apiUrl).host;
    this.cloudId = once(async () => c.cloudId ?? lookUpCloudId(c.site ?? '', c.timeoutMs));
  }

  private async call(method: JsonCall['method'], path: string, what: string, opts: CallOptions = {}) {
    const base = `${this.c.apiUrl.replace(/\/+$/, '')}/jsm/ops/api/${pathSegment(await this.cloudId())}/v1`;
    const basic = Buffer.from(`${this.c.email}:${this.c.apiToken}`).toString('base64');
    const api = {
      vendor: VENDOR,
      timeoutMs: this.c.timeoutMs,
      headers: { authorization: `Basic ${basic}` },
      reasonOf: jsmReason,
    };
    return callApi(api, base, method, path, what, opts);
  }

  /** One page of GET /alerts (newest first); `more` while JSM links a next page. */
  async listAlertsPage(
    query: string | undefined,
    offset: number,
    size = PAGE,
  ): Promise<{ alerts: JsmAlert[]; more: boolean }> {
    const res = await this.call('GET', '/alerts', 'list alerts', {
      query: { query, offset, size, sort: 'createdAt', order: 'desc' },
    });
    const page = parseAnswer(ListAlertsSchema, res.body, VENDOR, 'list alerts');
    return { alerts: page.values, more: Boolean(page.links?.next) && page.values.length > 0 };
  }

  async getAlert(id: string): Promise<JsmAlert | null> {
    const res = await this.call('GET', `/alerts/${pathSegment(id)}`, `get alert ${id}`, { accept: [404] });
    return res.status === 404 ? null : parseAnswer(JsmAlertSchema, res.body, VENDOR, `alert ${id}`);
  }

  /** Every note on the alert, in JSM's order (oldest first), following `links.next` by its `after` cursor. */
  async listNotes(alertId: string): Promise<AlertNote[]> {
    const out: AlertNote[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_NOTE_PAGES; page++) {
      const res = await this.call('GET', `/alerts/${pathSegment(alertId)}/notes`, `list notes of alert ${alertId}`, {
        query: { size: PAGE, after },
      });
      const { values, links } = parseAnswer(ListNotesSchema, res.body, VENDOR, `notes of alert ${alertId}`);
      out.push(...values.map((n) => ({ id: n.id, text: n.note ?? '', owner: n.owner ?? '' })));
      const next = queryParam(links?.next, 'after');
      if (!next || values.length === 0 || next === after) break;
      after = next;
    }
    return out;
  }

  /** Our notes' `owner`: the account the API key belongs to, by its e-mail. */
  get author(): string {
    return this.c.email;
  }

  async addNote(alertId: string, note: string): Promise<AddNoteOutcome> {
    const what = `add note to alert ${alertId}`;
    const res = await this.call('POST', `/alerts/${pathSegment(alertId)}/notes`, what, { body: { note } });
    return parseAnswer(AddNoteAnswerSchema, res.body, VENDOR, what);
  }

  /** PATCH …/notes/{id}; null when the note is gone (404). */
  async editNote(alertId: string, noteId: string, note: string): Promise<{ id: string } | null> {
    const what = `edit note ${noteId} of alert ${alertId}`;
    const res = await this.call('PATCH', `/alerts/${pathSegment(alertId)}/notes/${pathSegment(noteId)}`, what, {
      body: { note },
      accept: [404],
    });
    return res.status === 404 ? null : { id: parseAnswer(JsmNoteSchema, res.body, VENDOR, what).id };
  }

  /** GET /alerts/requests/{id}: 404 until processed. */
  async requestStatus(requestId: string): Promise<RequestState> {
    const what = `status of request ${requestId}`;
    const res = await this.call('GET', `/alerts/requests/${pathSegment(requestId)}`, what, { accept: [404] });
    if (res.status === 404) return { state: 'processing' };
    const s = parseAnswer(RequestStatusSchema, res.body, VENDOR, what);
    return requestStateOf(s.isSuccess, s.status);
  }
}
