import OpenAI from 'openai';
import type { LlmConfig } from '../config/schema.js';

export interface LlmClientOptions {
  /**
   * True when a rate limiter (src/llm/rate-limiter.ts) handles 429s: the SDK then does not retry them
   * itself (it would wait on its own, outside the shared limit, and use up its retries); it still
   * retries timeouts, 409s and 5xx answers up to `llm.maxRetries`.
   */
  limiterHandles429?: boolean;
}

/** One OpenAI-compatible client; base URL makes it Azure, vLLM, Ollama, LiteLLM or anything that speaks the wire format. */
export function createLlmClient(cfg: LlmConfig, opts: LlmClientOptions = {}): OpenAI {
  return new OpenAI({
    apiKey: cfg.apiKey ?? 'not-needed',
    baseURL: cfg.baseUrl,
    timeout: cfg.timeoutMs,
    maxRetries: cfg.maxRetries,
    ...(opts.limiterHandles429 ? { fetch: no429Retries } : {}),
  });
}

/**
 * fetch for the SDK, marking 429 answers `x-should-retry: false`: the SDK obeys that header before its
 * own rules (openai-node's shouldRetry), so a 429 comes back at once, headers and all, to the limiter.
 */
export async function no429Retries(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.status !== 429) return response;
  const headers = new Headers(response.headers);
  headers.set('x-should-retry', 'false');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

export function isLlmConfigured(cfg: LlmConfig): boolean {
  return Boolean(cfg.apiKey || cfg.baseUrl);
}
