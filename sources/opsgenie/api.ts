import { callApi, parseAnswer, queryParam, type CallOptions, type JsonCall } from '../ops-alerts-common/http-json.js';
import { requestStateOf, type AlertNote, type RequestState } from '../ops-alerts-common/notes-api.js';
import { pathSegment } from '../../src/outbound-http/path-segment.js';
import {
  AcceptedSchema,
  GetAlertSchema,
  ListAlertsSchema,
  ListNotesSchema,
  opsgenieReason,
  RequestStatusSchema,
  type OgAlert,
} from './schema.js';

export const VENDOR = 'OpsGenie';
const PAGE = 100;
const MAX_NOTE_PAGES = 100;

/**
 * The OpsGenie Alert API v2 calls Lestrade makes, over Node's fetch: `Authorization: GenieKey`,
 * a timeout on every request, answers checked with zod, failures typed (see callJson). A 429
 * without Retry-After waits X-RateLimit-Period-In-Sec, else a minute. Nothing is retried here.
 */
export class OpsgenieApi {
  readonly instance: string;
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly apiKey: string,
    private readonly timeoutMs = 15_000,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
    this.instance = new URL(this.base).host;
  }

  private call(method: JsonCall['method'], path: string, what: string, opts: CallOptions = {}) {
    const api = {
      vendor: VENDOR,
      timeoutMs: this.timeoutMs,
      headers: { authorization: `GenieKey ${this.apiKey}` },
      reasonOf: opsgenieReason,
      waitHeaders: ['x-ratelimit-period-in-sec'],
    };
    return callApi(api, this.base, method, path, what, opts);
  }

  /** One page of GET /v2/alerts (newest first); `more` while OpsGenie names a next page. */
  async listAlertsPage(
    query: string | undefined,
    offset: number,
    limit = PAGE,
  ): Promise<{ alerts: OgAlert[]; more: boolean }> {
    const res = await this.call('GET', '/v2/alerts', 'list alerts', {
      query: { query, offset, limit, sort: 'createdAt', order: 'desc' },
    });
    const page = parseAnswer(ListAlertsSchema, res.body, VENDOR, 'list alerts');
    return { alerts: page.data, more: Boolean(page.paging?.next) && page.data.length > 0 };
  }

  /** GET /v2/alerts/{id}: the alert with its description and details; null when it does not exist. */
  async getAlert(id: string): Promise<OgAlert | null> {
    const res = await this.call('GET', `/v2/alerts/${pathSegment(id)}`, `get alert ${id}`, {
      query: { identifierType: 'id' },
      accept: [404],
    });
    return res.status === 404 ? null : parseAnswer(GetAlertSchema, res.body, VENDOR, `alert ${id}`).data;
  }

  /** Every note on the alert, oldest first: offset paging (`order=asc`, the next offset read from `paging.next`). */
  async listNotes(alertId: string): Promise<AlertNote[]> {
    const out: AlertNote[] = [];
    let offset: string | undefined;
    for (let page = 0; page < MAX_NOTE_PAGES; page++) {
      const res = await this.call('GET', `/v2/alerts/${pathSegment(alertId)}/notes`, `list notes of alert ${alertId}`, {
        query: { identifierType: 'id', order: 'asc', direction: 'next', limit: PAGE, offset },
      });
      const { data, paging } = parseAnswer(ListNotesSchema, res.body, VENDOR, `notes of alert ${alertId}`);
      out.push(...data.map((n) => ({ id: n.offset ?? n.createdAt ?? '', text: n.note ?? '', owner: n.owner ?? '' })));
      const next = queryParam(paging?.next, 'offset') ?? data.at(-1)?.offset ?? undefined;
      if (!paging?.next || data.length === 0 || !next || next === offset) break;
      offset = next;
    }
    return out;
  }

  /** POST /v2/alerts/{id}/notes: 202 with the requestId to poll. */
  async addNote(alertId: string, note: string, user: string): Promise<string> {
    const what = `add note to alert ${alertId}`;
    const res = await this.call('POST', `/v2/alerts/${pathSegment(alertId)}/notes`, what, {
      query: { identifierType: 'id' },
      body: { note, user, source: 'Lestrade' },
    });
    return parseAnswer(AcceptedSchema, res.body, VENDOR, what).requestId;
  }

  /** GET /v2/alerts/requests/{requestId}. */
  async requestStatus(requestId: string): Promise<RequestState> {
    const what = `status of request ${requestId}`;
    const res = await this.call('GET', `/v2/alerts/requests/${pathSegment(requestId)}`, what, { accept: [404] });
    if (res.status === 404) return { state: 'processing' };
    const { data } = parseAnswer(RequestStatusSchema, res.body, VENDOR, what);
    return requestStateOf(data.isSuccess, data.status);
  }
}
