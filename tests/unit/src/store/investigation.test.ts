import { describe, expect, it } from 'vitest';
import { toToolCallRecord } from '../../../../src/store/investigation.js';

describe('toToolCallRecord', () => {
  it('keeps the feedback, the size of a kept output and the call id when there are any', () => {
    expect(
      toToolCallRecord({
        tool: 't',
        status: 'denied',
        params: {},
        elapsedMs: 1,
        feedback: 'not now',
        outputTokens: 12_000,
        callId: 'call_1',
      }),
    ).toEqual({
      name: 't',
      params: {},
      status: 'denied',
      durationMs: 1,
      feedback: 'not now',
      outputTokens: 12_000,
      toolCallId: 'call_1',
    });
  });

  it('leaves them out when they are empty', () => {
    expect(
      toToolCallRecord({
        tool: 't',
        status: 'success',
        params: {},
        elapsedMs: 1,
        error: '',
        feedback: '',
        outputTokens: 0,
        callId: '',
      }),
    ).toEqual({ name: 't', params: {}, status: 'success', durationMs: 1 });
  });
});
