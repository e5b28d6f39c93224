import { describeZodIssues, PermanentError, RetryableError } from '../../src/errors.js';
import { splitUrlCredentials, withUrlAuthorization } from '../../src/outbound-http/url-credentials.js';
import type { Issue } from '../../src/issue.js';
import type { SourceClient } from '../../src/registration/source.js';
import { issueFromApiAlert, SOURCE } from './map.js';
import { ApiAlertsSchema } from './schema.js';

/** What a pull asks Alertmanager for. */
export interface IssueQuery {
  /** Only alerts with all of these labels. */
  labels?: Record<string, string>;
  /** Only alerts whose alertname (else title) matches. */
  titlePattern?: RegExp;
  limit?: number;
}

/** Pull mode: active, unsilenced, uninhibited alerts from Alertmanager's API v2. */
export class AlertmanagerSource implements SourceClient<IssueQuery> {
  readonly name = SOURCE;

  private readonly baseUrl: string;
  private readonly displayUrl: string;
  private readonly headers: Record<string, string>;

  /** Credentials in the URL are sent as basic auth; messages show it with the password blanked. */
  constructor(baseUrl: string, headers: Record<string, string> = {}) {
    const { url, display, authorization } = splitUrlCredentials(baseUrl);
    this.baseUrl = url;
    this.displayUrl = display;
    this.headers = withUrlAuthorization(headers, authorization);
  }

  async fetchIssues(query: IssueQuery): Promise<Issue[]> {
    const url = new URL('api/v2/alerts', this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    url.searchParams.set('active', 'true');
    url.searchParams.set('silenced', 'false');
    url.searchParams.set('inhibited', 'false');
    for (const [k, v] of Object.entries(query.labels ?? {}))
      url.searchParams.append('filter', `${k}=${JSON.stringify(v)}`);
    const alerts = await this.get(url);
    const issues = alerts
      .map((a) => issueFromApiAlert(a, this.displayUrl))
      .filter((i) => i.status === 'open')
      .filter((i) => !query.titlePattern || query.titlePattern.test(i.labels.alertname ?? i.title))
      .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
    return query.limit ? issues.slice(0, query.limit) : issues;
  }

  async fetchByIdentity(identity: string): Promise<Issue | null> {
    const all = await this.fetchIssues({});
    return all.find((i) => i.identity === identity) ?? null;
  }

  private async get(url: URL) {
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { accept: 'application/json', ...this.headers },
        signal: AbortSignal.timeout(15_000),
      });
    } catch (err) {
      throw new RetryableError(`Alertmanager at ${this.displayUrl} unreachable: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const text = await res.text();
    if (!res.ok) {
      const msg = `Alertmanager answered HTTP ${res.status}: ${text.slice(0, 300)}`;
      throw res.status >= 500 ? new RetryableError(msg) : new PermanentError(msg);
    }
    const parsed = ApiAlertsSchema.safeParse(JSON.parse(text));
    if (!parsed.success)
      throw new PermanentError(`unexpected answer from Alertmanager: ${describeZodIssues(parsed.error.issues)}`);
    return parsed.data;
  }
}
