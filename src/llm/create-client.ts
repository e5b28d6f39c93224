import OpenAI from 'openai';
import type { LlmConfig } from '../config/schema.js';

/** One OpenAI-compatible client; base URL makes it Azure, vLLM, Ollama, LiteLLM or anything that speaks the wire format. */
export function createLlmClient(cfg: LlmConfig): OpenAI {
  return new OpenAI({
    apiKey: cfg.apiKey ?? 'not-needed',
    baseURL: cfg.baseUrl,
    timeout: cfg.timeoutMs,
    maxRetries: cfg.maxRetries,
  });
}

export function isLlmConfigured(cfg: LlmConfig): boolean {
  return Boolean(cfg.apiKey || cfg.baseUrl);
}
