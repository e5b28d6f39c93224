import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decodeCheckpoint, encodeCheckpoint } from '../../../../src/store/checkpoint.js';
import { initialState, type LoopState } from '../../../../src/records/loop-state.js';
import { runLoop } from '../../../../src/loop/run-loop.js';
import { instancedToolset } from '../../../../src/tools/instanced-toolset.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { Toolset } from '../../../../src/tools/types.js';
import { startScriptedLlm, toolResults, type Reply, type ScriptedLlm } from '../../../helpers/scripted-llm.js';

// The labels (LoopState.scope) reach every call the loop makes, a paused call's resume included,
// through a checkpoint: the instance of the cluster is the one that runs.

let llm: ScriptedLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

const restarted: string[] = [];
function cluster(name: string): Toolset {
  return {
    name: 'k8s',
    description: 'a cluster',
    origin: 'builtin',
    enabled: true,
    prerequisites: [],
    tools: [
      {
        name: 'restart',
        description: 'restarts a pod',
        sideEffects: true,
        params: z.strictObject({ pod: z.string() }),
        run: async (p) => {
          restarted.push(`${name}/${p.pod as string}`);
          return { status: 'success', data: `restarted in ${name}` };
        },
      },
    ],
  };
}

const ts = instancedToolset(
  [
    { name: 'a', toolset: cluster('a') },
    { name: 'b', toolset: cluster('b') },
  ],
  { label: 'cluster', crossInstance: false, configKey: 'toolsets.k8s' },
);

async function loopOn(script: Reply[], state: LoopState, approvals?: Map<string, { approved: boolean }>) {
  llm = await startScriptedLlm(script);
  const client = new OpenAI({ apiKey: 'test', baseURL: llm.baseUrl, maxRetries: 0 });
  return runLoop(state, {
    client,
    model: 'scripted',
    executor: new ToolExecutor({ tools: ts.tools }),
    pauseForApproval: true,
    ...(approvals ? { approvals: { decisions: approvals, expired: false } } : {}),
  });
}

describe('the loop and toolset instances', () => {
  it("runs a call in the issue's instance and refuses another's, a paused call resumed from a checkpoint too", async () => {
    const state = initialState([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'investigate' },
    ]);
    state.scope = { labels: { cluster: 'b' } };
    const paused = await loopOn(
      [
        {
          toolCalls: [
            { name: 'restart', arguments: { pod: 'web-1' }, id: 'c1' },
            { name: 'restart', arguments: { pod: 'web-2', instance: 'a' }, id: 'c2' },
          ],
        },
      ],
      state,
    );
    expect(paused.finishReason).toBe('awaiting_approval');
    expect(paused.state.awaiting?.approvals.map((p) => p.toolCallId)).toEqual(['c1']);
    await llm!.close();
    const resumed = decodeCheckpoint(encodeCheckpoint(paused.state));
    const done = await loopOn([{ content: 'RCA' }], resumed, new Map([['c1', { approved: true }]]));
    expect(done.answer).toBe('RCA');
    expect(restarted).toEqual(['b/web-1']);
    const results = toolResults(llm!.requests[0]!).map((t) => [t.tool_call_id, t.result.status, t.result.instance]);
    expect(results).toEqual([
      ['c1', 'success', 'b'],
      ['c2', 'error', undefined],
    ]);
    expect(done.state.toolCalls.map((c) => [c.status, c.instance])).toEqual([
      ['error', undefined],
      ['success', 'b'],
    ]);
  });
});
