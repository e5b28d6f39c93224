import OpenAI from 'openai';
import type { APIPromise } from 'openai/core/api-promise';
import type { ChatCompletion, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Logger } from '../log.js';
import { observeLlmCall, type LlmCallContext } from './observe-llm-call.js';
import { readProviderLimits, type ProviderLimits } from './rate-limit-headers.js';
import type { Grant, LlmRateLimiter } from './rate-limiter.js';

/** Tokens an answer is expected to take, added to the counted prompt before the request (usage corrects it). */
export const ANSWER_ALLOWANCE_TOKENS = 500;

/** What a run's LLM requests go through: the shared limiter, at the run's queue priority. */
export interface LlmGate {
  limiter: LlmRateLimiter;
  /** The queue's priority of the issue (critical 1): lower goes first. */
  priority: number;
  /** The longest one request waits on the limiter and the provider's resets before the run is retried later. */
  maxWaitMs: number;
  now?: () => number;
  log?: Pick<Logger, 'info' | 'warn'>;
}

export interface LlmRequest {
  observed: LlmCallContext;
  gate?: LlmGate;
  /** The prompt's tokens, counted before the request. */
  promptTokens: number;
  signal?: AbortSignal;
  /**
   * What the messages become before they leave the process: the run's redaction (src/redaction/), which replaces
   * private values with placeholders. Every request to the model passes here, so nothing is sent unredacted.
   */
  outgoing?: (messages: ChatCompletionMessageParam[]) => ChatCompletionMessageParam[];
}

type Send = (messages: ChatCompletionMessageParam[]) => APIPromise<ChatCompletion>;

/**
 * The one door every request to the model goes through (the loop's steps and the history's summaries alike):
 * the messages pass `req.outgoing` (redaction) once, then `send` is called with them through the limiter.
 */
export async function sendToModel(req: LlmRequest, messages: ChatCompletionMessageParam[], send: Send) {
  const outgoing = req.outgoing ? req.outgoing(messages) : messages;
  return limitedCompletion(req, () => send(outgoing));
}

/**
 * One chat completion through the rate limiter: wait for a grant, send, count the real tokens and
 * what the provider's headers say. A 429 is not a failure: it blocks every process until the
 * provider's reset and the request waits its turn again, up to the gate's maxWaitMs (the client's
 * own retries are off for 429, see create-client.ts). Without a gate the request goes straight out.
 */
async function limitedCompletion(req: LlmRequest, call: () => APIPromise<ChatCompletion>) {
  const { gate } = req;
  if (!gate) return observeLlmCall(req.observed, () => call());
  const now = gate.now ?? Date.now;
  const deadline = now() + gate.maxWaitMs;
  const tokens = req.promptTokens + ANSWER_ALLOWANCE_TOKENS;
  for (;;) {
    const grant = await gate.limiter.acquire({ priority: gate.priority, tokens, signal: req.signal, deadline });
    let headers: Headers | undefined;
    try {
      const response = await observeLlmCall(req.observed, async () => {
        const r = await call().withResponse();
        headers = r.response.headers;
        return r.data;
      });
      await settle(gate, grant, response.usage?.total_tokens ?? -1, readProviderLimits(headers));
      return response;
    } catch (err) {
      if (!(err instanceof OpenAI.APIError)) throw err;
      const said = readProviderLimits(err.headers as Headers | undefined);
      const rateLimited = err.status === 429;
      await settle(gate, grant, rateLimited ? 0 : -1, said, rateLimited);
      if (!rateLimited) throw err;
      gate.log?.info({ model: gate.limiter.model, said }, 'LLM answered 429: waiting for the provider to reset');
    }
  }
}

async function settle(gate: LlmGate, grant: Grant, tokens: number, said: ProviderLimits, limited = false) {
  await gate.limiter.settle(grant, tokens, said, limited).catch((err: Error) => {
    // The answer is in hand: a Redis hiccup here only leaves the estimate counted, not a failed run.
    gate.log?.warn({ err: err.message }, 'could not record an LLM request in the rate limiter');
  });
}
