import { splitUrlCredentials, withUrlAuthorization } from '../../src/outbound-http/url-credentials.js';
import { withoutUrlQueries } from '../../src/tools/url-without-query.js';

/** A query string's values: a list repeats the key (Alertmanager's `filter=a&filter=b`). */
export type Query = Record<string, string | string[] | undefined>;

/**
 * A thin client for Alertmanager's API v2. Credentials in the URL (http://user:pass@am:9093) are sent as
 * basic auth; messages show the URL with the password blanked and without its query.
 */
export class AlertmanagerClient {
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  /** The URL for messages. */
  readonly displayUrl: string;

  constructor(baseUrl: string, headers: Record<string, string> = {}) {
    const { url, display, authorization } = splitUrlCredentials(baseUrl);
    this.baseUrl = url.endsWith('/') ? url : `${url}/`;
    this.displayUrl = withoutUrlQueries(display);
    this.headers = withUrlAuthorization(headers, authorization);
  }

  /** The readiness endpoint's URL, with the credentials as configured (for the http prerequisite). */
  static readyUrl(baseUrl: string): string {
    return new URL('-/ready', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`).toString();
  }

  get(path: string, query: Query, signal?: AbortSignal): Promise<unknown> {
    return this.request('GET', path, query, undefined, signal);
  }

  post(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    return this.request('POST', path, {}, body, signal);
  }

  private async request(
    method: 'GET' | 'POST',
    path: string,
    query: Query,
    body: unknown,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const url = new URL(`api/v2/${path}`, this.baseUrl);
    for (const [k, v] of Object.entries(query)) {
      for (const one of Array.isArray(v) ? v : [v])
        if (one !== undefined && one !== '') url.searchParams.append(k, one);
    }
    const res = await fetch(url, {
      method,
      headers: body === undefined ? this.headers : { ...this.headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal,
    });
    const text = await res.text();
    if (!res.ok) {
      // Alertmanager answers errors as a JSON string or plain text: either way, its first line says why.
      throw new Error(`Alertmanager ${method} /api/v2/${path} answered HTTP ${res.status}: ${errorText(text)}`);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(`Alertmanager ${method} /api/v2/${path} answered non-JSON: ${text.slice(0, 200)}`);
    }
  }
}

function errorText(text: string): string {
  let said: unknown = text;
  try {
    said = JSON.parse(text);
  } catch {
    // Plain text: quoted as it is.
  }
  const s = typeof said === 'string' ? said : text;
  return s.trim().slice(0, 300) || '(empty body)';
}
