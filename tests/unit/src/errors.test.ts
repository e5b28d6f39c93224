import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { ConfigError, InputError, PermanentError, RetryableError, asTypedError } from '../../../src/errors.js';
import { chatUrl, classifyLlmError } from '../../../src/llm/classify-error.js';

// One rule for failures nobody typed (src/errors.ts asTypedError), followed by the LLM error
// classifier and the worker alike.

describe('asTypedError', () => {
  it('keeps typed errors as they are', () => {
    const retry = new RetryableError('later', { retryAfterMs: 5 });
    const stop = new PermanentError('never');
    expect(asTypedError(retry)).toBe(retry);
    expect(asTypedError(stop, 'context')).toBe(stop);
  });

  it('makes configuration and input errors permanent: trying again cannot fix them', () => {
    const cfg = new ConfigError('template investigate.jinja2, line 2: oops');
    const typed = asTypedError(cfg);
    expect(typed).toBeInstanceOf(PermanentError);
    expect(typed.message).toBe('template investigate.jinja2, line 2: oops');
    expect(typed.cause).toBe(cfg);
    expect(asTypedError(new InputError('a.b', 'bad'))).toBeInstanceOf(PermanentError);
  });

  it('makes anything else retryable, keeping the message and the cause', () => {
    const blip = new Error('Connection is closed.');
    const typed = asTypedError(blip);
    expect(typed).toBeInstanceOf(RetryableError);
    expect(typed).toMatchObject({ message: 'Connection is closed.', retryAfterMs: undefined, cause: blip });
    expect(asTypedError('a string thrown').message).toBe('a string thrown');
    expect(asTypedError(new TypeError('x is undefined'), 'LLM call failed').message).toBe(
      'LLM call failed: x is undefined',
    );
  });
});

describe('classifyLlmError follows the same rule', () => {
  it('an unknown failure of the LLM call is retryable, as it is in the worker', () => {
    for (const err of [new Error('the model returned no choices'), new TypeError('fetch failed'), 'weird']) {
      const typed = classifyLlmError(err);
      expect(typed).toBeInstanceOf(RetryableError);
      expect(typed).toEqual(asTypedError(err, 'LLM call failed'));
    }
    expect(classifyLlmError(new ConfigError('bad'))).toBeInstanceOf(PermanentError);
  });

  it("sorts the API's answers: 408, 409, 429 and 5xx retryable with their Retry-After, other 4xx permanent", () => {
    const api = (status: number, headers: Record<string, string> = {}) =>
      OpenAI.APIError.generate(status, { error: { message: `m${status}` } }, undefined, new Headers(headers));
    for (const status of [408, 409, 429, 500, 503]) {
      const typed = classifyLlmError(api(status, { 'retry-after': '3' }));
      expect(typed, String(status)).toBeInstanceOf(RetryableError);
      expect((typed as RetryableError).retryAfterMs).toBe(3_000);
      expect(typed.message).toMatch(new RegExp(`^LLM answered ${status}: `));
    }
    for (const status of [400, 401, 403, 404, 422])
      expect(classifyLlmError(api(status)), String(status)).toBeInstanceOf(PermanentError);
    expect(classifyLlmError(new OpenAI.APIConnectionError({ message: 'refused' })).message).toBe(
      'LLM unreachable: refused',
    );
    expect(classifyLlmError(new OpenAI.APIConnectionError({ message: 'refused' }))).toBeInstanceOf(RetryableError);
  });

  it('names the endpoint it called (without credentials, query or fragment) and, when unreachable, the setting', () => {
    const base = 'https://user:s3cret@llm.example:8443/openai/v1/?api-key=k3y#x';
    const refused = classifyLlmError(new OpenAI.APIConnectionError({ message: 'refused' }), base);
    expect(refused.message).toBe(
      'LLM unreachable (POST https://llm.example:8443/openai/v1/chat/completions): refused; check OPENAI_BASE_URL (llm.baseUrl)',
    );
    const denied = classifyLlmError(
      OpenAI.APIError.generate(401, { error: { message: 'bad key' } }, undefined, new Headers()),
      base,
    );
    expect(denied.message).toMatch(
      /^LLM answered 401 \(POST https:\/\/llm\.example:8443\/openai\/v1\/chat\/completions\): /,
    );
    for (const m of [refused.message, denied.message]) expect(m).not.toMatch(/s3cret|k3y|user/);
    expect(chatUrl('not a url')).toBe('(an unparseable base URL)');
  });
});
