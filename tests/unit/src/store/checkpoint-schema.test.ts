import { describe, expect, it } from 'vitest';
import { CheckpointError } from '../../../../src/errors.js';
import type { LoopState } from '../../../../src/records/loop-state.js';

// Every part of a saved loop state the schema checks: a full state reads back; each damage is
// refused as a CheckpointError naming where it is.
//
// The module is imported inside the tests, not at the top: a schema that cannot even be built
// (a discriminated union missing its key) throws when the module loads, and a file failing to
// load reports no failed test to a mutation run, only a test that fails does.
const codec = () => import('../../../../src/store/checkpoint.js');

type Json = Record<string, any>;

/** A state using every field: a paused turn of two calls, results of every status, a compaction. */
function full(): LoopState {
  return {
    messages: [
      { role: 'system', content: 'sys' },
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_q', type: 'function', function: { name: 'query', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_q', content: 'ok' },
      {
        role: 'assistant',
        content: 'restarting',
        tool_calls: [
          { id: 'call_r1', type: 'function', function: { name: 'restart', arguments: '{"pod":"a"}' } },
          { id: 'call_r2', type: 'function', function: { name: 'restart', arguments: '{"pod":"b"}' } },
        ],
      },
    ],
    steps: 3,
    usage: { promptTokens: 10.5, completionTokens: 2, llmCalls: 2 },
    toolCalls: (['success', 'error', 'no_data', 'approval_required', 'denied'] as const).map((status, i) => ({
      tool: 'query',
      status,
      params: { i },
      elapsedMs: i,
      data: 'd',
      error: 'e',
      feedback: 'f',
      truncated: true,
      outputTokens: 9,
      hint: 'h',
      callId: `c${i}`,
      vouches: true as const,
      instance: 'prod-eu',
    })),
    callKeys: ['query({})'],
    awaiting: {
      seq: 2,
      calls: [
        { id: 'call_r1', name: 'restart', arguments: '{"pod":"a"}' },
        { id: 'call_r2', name: 'restart', arguments: '{"pod":"b"}' },
      ],
      results: [null, null],
      approvals: ['call_r1', 'call_r2'].map((id) => ({
        toolCallId: id,
        tool: 'restart',
        params: {},
        reason: 'side effects',
        callKey: `restart(${id})`,
      })),
    },
    pauses: 2,
    forceAnswer: 'approval_expired',
    question: 'why?',
    questionEntry: 1,
    scope: { labels: { cluster: 'prod-eu', namespace: 'api' } },
    context: {
      windowTokens: 8000,
      peakTokens: 1200,
      compactions: [
        {
          at: '2026-11-30T00:00:00.000Z',
          step: 2,
          tokensBefore: 900,
          tokensAfter: 300,
          summarizedMessages: 4,
          truncatedResults: 1,
        },
      ],
    },
  };
}

/** The error decoding a full state damaged by `damage`. */
async function refusal(damage: (state: Json) => void): Promise<Error> {
  const { decodeCheckpoint, encodeCheckpoint } = await codec();
  const doc = JSON.parse(encodeCheckpoint(full()));
  damage(doc.state);
  try {
    decodeCheckpoint(JSON.stringify(doc));
  } catch (err) {
    expect(err).toBeInstanceOf(CheckpointError);
    return err as Error;
  }
  throw new Error('the damaged checkpoint was accepted');
}

describe('a checkpoint using every field', () => {
  it('reads back as saved', async () => {
    const { decodeCheckpoint, encodeCheckpoint } = await codec();
    expect(decodeCheckpoint(encodeCheckpoint(full()))).toEqual(full());
  });

  it("keeps the issue's labels that pick toolset instances, and refuses a label that is not text", async () => {
    const { decodeCheckpoint, encodeCheckpoint } = await codec();
    expect(decodeCheckpoint(encodeCheckpoint(full())).scope).toEqual({
      labels: { cluster: 'prod-eu', namespace: 'api' },
    });
    expect((await refusal((s) => (s.scope.labels.cluster = 3))).message).toContain('scope');
    expect((await refusal((s) => (s.toolCalls[0].instance = 1))).message).toContain('instance');
  });

  it('keeps who decided a call, by every way a decision arrives, and refuses any other', async () => {
    const { decodeCheckpoint, encodeCheckpoint } = await codec();
    const state = full();
    const vias = ['api', 'cli', 'dashboard', 'slack', 'github', 'jira'] as const;
    state.toolCalls = vias.map((via, i) => ({
      ...state.toolCalls[0]!,
      decidedBy: { via, user: `u${i}`, ...(i === 0 ? { name: 'Someone' } : {}) },
    }));
    expect(decodeCheckpoint(encodeCheckpoint(state))).toEqual(state);
    const other = JSON.parse(encodeCheckpoint(state)) as Json;
    other.state.toolCalls[2].decidedBy.via = 'carrier-pigeon';
    expect(() => decodeCheckpoint(JSON.stringify(other))).toThrow(CheckpointError);
  });
});

describe('a damaged checkpoint', () => {
  const cases: Array<[string, (s: Json) => void, RegExp]> = [
    [
      'a tool call with an empty id',
      (s) => {
        s.messages[2].tool_calls[0].id = '';
      },
      /state\.messages\.2\.tool_calls\.0\.id/,
    ],
    [
      'a tool call of another type',
      (s) => {
        s.messages[2].tool_calls[0].type = 'code';
      },
      /state\.messages\.2\.tool_calls\.0\.type/,
    ],
    [
      'a tool call with no function name',
      (s) => {
        delete s.messages[2].tool_calls[0].function.name;
      },
      /state\.messages\.2\.tool_calls\.0\.function\.name/,
    ],
    [
      'a system message with no text',
      (s) => {
        s.messages[0].content = 5;
      },
      /state\.messages\.0\.content/,
    ],
    [
      'a user message with neither text nor parts',
      (s) => {
        s.messages[1].content = { text: 'go' };
      },
      /state\.messages\.1\.content/,
    ],
    [
      'an assistant message with a number for content',
      (s) => {
        s.messages[2].content = 5;
      },
      /state\.messages\.2\.content/,
    ],
    [
      'a tool message answering no call',
      (s) => {
        delete s.messages[3].tool_call_id;
      },
      /state\.messages\.3\.tool_call_id/,
    ],
    [
      'a message of no known role',
      (s) => {
        s.messages[3].role = 'robot';
      },
      /state\.messages\.3/,
    ],
    [
      'a message with no role',
      (s) => {
        delete s.messages[3].role;
      },
      /state\.messages\.3/,
    ],
    [
      'a tool result with a field it does not have',
      (s) => {
        s.toolCalls[0].extra = 1;
      },
      /state\.toolCalls\.0/,
    ],
    [
      'a tool result of no known status',
      (s) => {
        s.toolCalls[0].status = 'maybe';
      },
      /state\.toolCalls\.0\.status/,
    ],
    [
      'a tool result with no elapsed time',
      (s) => {
        delete s.toolCalls[1].elapsedMs;
      },
      /state\.toolCalls\.1\.elapsedMs/,
    ],
    [
      'a paused turn with no calls',
      (s) => {
        s.awaiting.calls = [];
        s.awaiting.results = [];
      },
      /state\.awaiting\.calls/,
    ],
    [
      'a paused turn with nothing to approve',
      (s) => {
        s.awaiting.approvals = [];
      },
      /state\.awaiting\.approvals/,
    ],
    [
      'a paused turn with results not matching its calls',
      (s) => {
        s.awaiting.results = [null];
      },
      /results must match calls one to one/,
    ],
    [
      'a pending approval with a field it does not have',
      (s) => {
        s.awaiting.approvals[0].extra = 1;
      },
      /state\.awaiting\.approvals\.0/,
    ],
    [
      'a negative pause count',
      (s) => {
        s.pauses = -1;
      },
      /state\.pauses/,
    ],
    [
      'a forced answer of another kind',
      (s) => {
        s.forceAnswer = 'tired';
      },
      /state\.forceAnswer/,
    ],
    [
      'a negative question entry',
      (s) => {
        s.questionEntry = -1;
      },
      /state\.questionEntry/,
    ],
    [
      'a negative context window',
      (s) => {
        s.context.windowTokens = -1;
      },
      /state\.context\.windowTokens/,
    ],
    [
      'a result that vouches for links with anything but true',
      (s) => {
        s.toolCalls[0].vouches = false;
      },
      /state\.toolCalls\.0\.vouches/,
    ],
    [
      'a negative peak',
      (s) => {
        s.context.peakTokens = -1;
      },
      /state\.context\.peakTokens/,
    ],
    [
      'a compaction missing a count',
      (s) => {
        delete s.context.compactions[0].truncatedResults;
      },
      /state\.context\.compactions\.0\.truncatedResults/,
    ],
  ];
  for (const [name, damage, where] of cases) {
    it(`is refused: ${name}`, async () => {
      const err = await refusal(damage);
      expect(err.message).toMatch(/^saved checkpoint is damaged: /);
      expect(err.message).toMatch(where);
    });
  }

  it('is refused with no version when it is not a JSON object', async () => {
    const { decodeCheckpoint } = await codec();
    for (const text of ['null', '5', '"text"', 'true', '[]']) {
      expect(() => decodeCheckpoint(text), text).toThrow(CheckpointError);
      expect(() => decodeCheckpoint(text), text).toThrow(/has no version/);
    }
  });
});
