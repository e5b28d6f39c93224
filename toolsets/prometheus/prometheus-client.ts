import { splitUrlCredentials, withUrlAuthorization } from '../../src/outbound-http/url-credentials.js';
import { withoutUrlQueries } from '../../src/tools/url-without-query.js';

/**
 * A thin client for Prometheus' HTTP API (/api/v1). Credentials in the URL
 * (http://user:pass@host:9090) are sent as basic auth; messages show the URL with the password blanked.
 */
export class PrometheusClient {
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  /** The URL for messages: password blanked, no query or fragment (a token may ride there). */
  readonly displayUrl: string;

  constructor(baseUrl: string, headers: Record<string, string> = {}) {
    const { url, display, authorization } = splitUrlCredentials(baseUrl);
    this.baseUrl = url;
    this.displayUrl = withoutUrlQueries(display);
    this.headers = withUrlAuthorization(headers, authorization);
  }

  async get(path: string, params: Record<string, string | undefined>, signal?: AbortSignal): Promise<unknown> {
    const url = new URL(`api/v1/${path}`, this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') url.searchParams.set(k, v);
    const res = await fetch(url, { headers: this.headers, signal });
    const text = await res.text();
    let body: { status?: string; data?: unknown; error?: string; errorType?: string };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new Error(`Prometheus answered HTTP ${res.status} with non-JSON: ${text.slice(0, 300)}`);
    }
    if (!res.ok || body.status !== 'success') {
      throw new Error(`Prometheus ${body.errorType ?? `HTTP ${res.status}`}: ${body.error ?? text.slice(0, 300)}`);
    }
    return body.data;
  }

  /** Resolves to null when Prometheus answers, else to the reason it does not. */
  async probe(): Promise<string | null> {
    try {
      await this.get('status/buildinfo', {}, AbortSignal.timeout(5_000));
      return null;
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      return `Prometheus at ${this.displayUrl} did not answer: ${cause ?? (err as Error).message}`;
    }
  }
}
