import OpenAI from 'openai';
import { redactUrl } from '../redact.js';

const PROBE_TIMEOUT_MS = 5_000;

/**
 * Whether the LLM endpoint answers, for /readyz: GET {baseURL}/models through the SDK, the answer
 * kept for `cacheMs` so probes do not load the model server; concurrent probes share one request.
 * Any answer but a connection failure, a timeout, a 5xx or a refused key counts as up (a server
 * without a /models route still answers).
 */
export class LlmProbe {
  private cached: { at: number; result: string } | null = null;
  private inflight: Promise<string> | null = null;

  constructor(
    private readonly client: OpenAI,
    private readonly cacheMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** "ok", or why not, naming the URL. */
  async check(): Promise<string> {
    if (this.cached && this.now() - this.cached.at < this.cacheMs) return this.cached.result;
    this.inflight ??= this.probe()
      .then((result) => {
        this.cached = { at: this.now(), result };
        return result;
      })
      .finally(() => {
        this.inflight = null;
      });
    return this.inflight;
  }

  private async probe(): Promise<string> {
    const url = `${redactUrl(this.client.baseURL).replace(/\/+$/, '')}/models`;
    try {
      await this.client.models.list({ timeout: PROBE_TIMEOUT_MS, maxRetries: 0 });
      return 'ok';
    } catch (err) {
      if (err instanceof OpenAI.APIConnectionError)
        return `unreachable: GET ${url}: ${err.message} (OPENAI_BASE_URL, llm.baseUrl)`;
      if (!(err instanceof OpenAI.APIError)) return `failed: GET ${url}: ${(err as Error).message}`;
      const status = Number(err.status ?? 0);
      if (status === 401 || status === 403)
        return `refused: GET ${url} answered ${status}; check OPENAI_API_KEY (llm.apiKey)`;
      if (status >= 500) return `failing: GET ${url} answered ${status}`;
      return 'ok';
    }
  }
}
