import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../../../../src/errors.js';
import { initialState } from '../../../../src/records/loop-state.js';
import { CHECKPOINT_VERSION, decodeCheckpoint, encodeCheckpoint } from '../../../../src/store/checkpoint.js';
import { thrownBy } from '../../../helpers/failure-of.js';

const state = () => {
  const s = initialState([
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'go' },
  ]);
  s.messages.push({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'a', type: 'function', function: { name: 'say', arguments: '{}' } }],
  });
  s.messages.push({ role: 'tool', tool_call_id: 'a', content: '{"status":"success"}' });
  return s;
};

describe('checkpoints', () => {
  it('round-trip with their version', () => {
    const text = encodeCheckpoint(state());
    expect(JSON.parse(text).version).toBe(CHECKPOINT_VERSION);
    expect(decodeCheckpoint(text)).toEqual(state());
  });

  it('refuse an unversioned (older Lestrade) or other-version checkpoint, saying which', () => {
    expect(() => decodeCheckpoint(JSON.stringify(state()))).toThrow(/no version \(written by an older Lestrade\)/);
    expect(() => decodeCheckpoint(JSON.stringify({ version: 3, state: state() }))).toThrow(
      'saved checkpoint is version 3; this Lestrade reads version 2 only',
    );
  });

  it('refuse a damaged one with the place of the damage, as a permanent CheckpointError', () => {
    const bad = JSON.parse(encodeCheckpoint(state()));
    bad.state.messages[2].role = 'robot';
    const err = thrownBy(() => decodeCheckpoint(JSON.stringify(bad)));
    expect(err).toBeInstanceOf(CheckpointError);
    expect((err as Error).message).toMatch(/^saved checkpoint is damaged: state\.messages\.2/);
    expect(() => decodeCheckpoint('{"version":2,')).toThrow(/not JSON/);
    const missing = JSON.parse(encodeCheckpoint(state()));
    delete missing.state.callKeys;
    expect(() => decodeCheckpoint(JSON.stringify(missing))).toThrow(/state\.callKeys/);
  });

  it('refuse a history with a tool call left unanswered outside a paused turn (never a half-resumed loop)', () => {
    const s = state();
    s.messages.pop();
    expect(() => decodeCheckpoint(encodeCheckpoint(s))).toThrow(/tool call a has no result/);
    s.awaiting = {
      seq: 1,
      calls: [{ id: 'a', name: 'say', arguments: '{}' }],
      results: [null],
      approvals: [{ toolCallId: 'a', tool: 'say', params: {}, reason: 'r', callKey: 'say({})' }],
    };
    expect(decodeCheckpoint(encodeCheckpoint(s)).awaiting?.seq).toBe(1);
  });
});
