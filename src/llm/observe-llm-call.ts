import OpenAI from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import type { LlmOutcome, Metrics } from '../observability/metrics.js';
import { GEN_AI, inSpan, SpanKind } from '../observability/tracing.js';

export interface LlmCallContext {
  metrics: Metrics;
  model: string;
  /** The endpoint's base URL, for the span's server.address and server.port. */
  baseUrl: string;
}

/**
 * One chat completion, counted and timed (lestrade_llm_*) and traced as a `chat {model}` span with
 * the GenAI attributes: model, provider, token usage, finish reasons. Never the messages.
 */
export async function observeLlmCall(c: LlmCallContext, call: () => Promise<ChatCompletion>): Promise<ChatCompletion> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  return inSpan(
    `chat ${c.model}`,
    SpanKind.CLIENT,
    { [GEN_AI.operation]: 'chat', [GEN_AI.provider]: 'openai', [GEN_AI.requestModel]: c.model, ...server(c.baseUrl) },
    async (span) => {
      let response: ChatCompletion;
      try {
        response = await call();
      } catch (err) {
        c.metrics.llmRequest(c.model, llmOutcomeOf(err), seconds(), null);
        throw err;
      }
      const input = response.usage?.prompt_tokens ?? 0;
      const output = response.usage?.completion_tokens ?? 0;
      c.metrics.llmRequest(c.model, 'ok', seconds(), { input, output });
      span.setAttributes({
        [GEN_AI.responseModel]: response.model,
        [GEN_AI.responseId]: response.id,
        [GEN_AI.inputTokens]: input,
        [GEN_AI.outputTokens]: output,
        [GEN_AI.finishReasons]: response.choices.map((ch) => ch.finish_reason ?? 'unknown'),
      });
      return response;
    },
  );
}

/** The class of an LLM failure, from the SDK's error types. */
export function llmOutcomeOf(err: unknown): LlmOutcome {
  if (err instanceof OpenAI.APIUserAbortError) return 'cancelled';
  if (err instanceof OpenAI.APIConnectionTimeoutError) return 'timeout';
  if (err instanceof OpenAI.APIConnectionError) return 'unreachable';
  if (err instanceof OpenAI.APIError) {
    const status = Number(err.status ?? 0);
    if (status === 429) return 'rate_limited';
    if (status === 408) return 'timeout';
    if (status >= 500) return 'server_error';
    if (status >= 400) return 'client_error';
  }
  return 'error';
}

function server(baseUrl: string): Record<string, string | number> {
  try {
    const u = new URL(baseUrl);
    const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
    return { 'server.address': u.hostname, 'server.port': port };
  } catch {
    return {};
  }
}
