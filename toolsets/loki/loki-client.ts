import { splitUrlCredentials, withUrlAuthorization } from '../../src/outbound-http/url-credentials.js';

export interface LokiClientConfig {
  /** Loki's base URL (http://loki:3100, or a gateway's); user:password in it is sent as basic auth. */
  url: string;
  /** Sent as X-Scope-OrgID (multi-tenant Loki, Grafana Cloud). */
  tenant?: string;
  /** Sent as `Authorization: Bearer …` unless headers set an Authorization of their own. */
  bearerToken?: string;
  headers?: Record<string, string>;
}

/** Loki's answer to a query, labels or label values request: `{status, data}`. */
interface LokiBody {
  status?: string;
  data?: unknown;
}

/** The longest piece of Loki's own error text a message quotes. */
const ERROR_CHARS = 300;

/**
 * A thin client for Loki's HTTP API (/loki/api/v1). Loki answers a refused request with its reason
 * as plain text (400 for a bad parameter or LogQL, 401 "no org id" without a tenant): the message
 * quotes it, with the URL's password blanked and never a header.
 */
export class LokiClient {
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  /** The URL for messages: password blanked. */
  readonly displayUrl: string;

  constructor(cfg: LokiClientConfig) {
    const { url, display, authorization } = splitUrlCredentials(cfg.url);
    this.baseUrl = url.endsWith('/') ? url : `${url}/`;
    this.displayUrl = display;
    const headers: Record<string, string> = { ...cfg.headers };
    if (cfg.tenant) headers['X-Scope-OrgID'] = cfg.tenant;
    const bearer = cfg.bearerToken ? `Bearer ${cfg.bearerToken}` : undefined;
    this.headers = withUrlAuthorization(withUrlAuthorization(headers, bearer), authorization);
  }

  /** GET /loki/api/v1/<path>; resolves to `data`, throws with Loki's reason otherwise. */
  async get(path: string, params: Record<string, string | undefined>, signal?: AbortSignal): Promise<unknown> {
    const url = new URL(`loki/api/v1/${path}`, this.baseUrl);
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') url.searchParams.set(k, v);
    const res = await fetch(url, { headers: this.headers, signal });
    const text = await res.text();
    if (!res.ok) throw new Error(`Loki answered HTTP ${res.status} to ${path}: ${clip(text)}`);
    let body: LokiBody;
    try {
      body = JSON.parse(text) as LokiBody;
    } catch {
      throw new Error(`Loki answered HTTP ${res.status} to ${path} with non-JSON: ${clip(text)}`);
    }
    if (body.status !== 'success') throw new Error(`Loki answered ${path} with status ${String(body.status)}`);
    return body.data;
  }

  /** Resolves to null when Loki answers a labels request (so the tenant and credentials pass), else why not. */
  async probe(): Promise<string | null> {
    try {
      await this.get('labels', {}, AbortSignal.timeout(5_000));
      return null;
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      return `Loki at ${this.displayUrl} did not answer: ${cause ?? (err as Error).message}`;
    }
  }
}

function clip(text: string): string {
  const t = text.trim();
  return t.length > ERROR_CHARS ? `${t.slice(0, ERROR_CHARS)}…` : t;
}
