import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { llmOutcomeOf } from '../../../../src/llm/observe-llm-call.js';

describe('llmOutcomeOf', () => {
  it("sorts the SDK's errors into a closed set", () => {
    const api = (status: number) => OpenAI.APIError.generate(status, { error: { message: 'x' } }, 'x', new Headers());
    expect(llmOutcomeOf(api(429))).toBe('rate_limited');
    expect(llmOutcomeOf(api(503))).toBe('server_error');
    expect(llmOutcomeOf(api(400))).toBe('client_error');
    expect(llmOutcomeOf(api(408))).toBe('timeout');
    expect(llmOutcomeOf(new OpenAI.APIConnectionTimeoutError())).toBe('timeout');
    expect(llmOutcomeOf(new OpenAI.APIConnectionError({ message: 'refused' }))).toBe('unreachable');
    expect(llmOutcomeOf(new OpenAI.APIUserAbortError())).toBe('cancelled');
    expect(llmOutcomeOf(new Error('other'))).toBe('error');
  });
});
