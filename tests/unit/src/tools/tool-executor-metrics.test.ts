import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { noMetrics, type Metrics } from '../../../../src/observability/metrics.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { Tool, ToolOutput } from '../../../../src/tools/types.js';

/** What the executor told the metrics port of each call. */
function recorder() {
  const calls: Array<{ toolset: string; tool: string; status: string; outcome: string; seconds: number }> = [];
  const metrics: Metrics = {
    ...noMetrics,
    toolCall: (toolset, tool, status, outcome, seconds) => calls.push({ toolset, tool, status, outcome, seconds }),
  };
  return { metrics, calls };
}

const tool = (name: string, output: ToolOutput, over: Partial<Tool> = {}): Tool => ({
  name,
  description: name,
  params: z.strictObject({ target: z.string().optional() }),
  run: async () => output,
  ...over,
});

describe('ToolExecutor metrics: the outcome says whether the tool ran', () => {
  it('labels each way a call ends, the never-run ones apart from the ones that ran', async () => {
    const { metrics, calls } = recorder();
    const e = new ToolExecutor({
      tools: [
        tool('ok', { status: 'success', data: 'x' }),
        tool('empty', { status: 'no_data' }),
        tool('broken', { status: 'error', error: 'exit 1' }),
        tool('bash', { status: 'success', data: 'x' }, { verdict: () => ({ decision: 'deny', reason: 'no rm' }) }),
        tool('restart', { status: 'success', data: 'x' }, { sideEffects: true }),
      ],
      metrics,
      toolsetOf: new Map([
        ['ok', 'set'],
        ['empty', 'set'],
        ['broken', 'set'],
        ['bash', 'shell'],
        ['restart', 'ops'],
      ]),
    });
    const run = (name: string, args = '{}') => e.execute({ id: 'c', name, arguments: args });
    await run('ok');
    await run('empty');
    await run('broken');
    await run('bash');
    await run('restart');
    await run('made_up');
    await run('ok', '{oops');
    await run('ok', '{"target":7}');
    await run('ok', '{"target":"a","output_grep":"zzz"}');
    await run('ok', '{"output_head":"many"}');
    expect(calls.map(({ seconds: _s, ...c }) => c)).toEqual([
      { toolset: 'set', tool: 'ok', status: 'success', outcome: 'success' },
      { toolset: 'set', tool: 'empty', status: 'no_data', outcome: 'no_data' },
      { toolset: 'set', tool: 'broken', status: 'error', outcome: 'error' },
      { toolset: 'shell', tool: 'bash', status: 'error', outcome: 'refused' },
      { toolset: 'ops', tool: 'restart', status: 'approval_required', outcome: 'approval_required' },
      { toolset: 'unknown', tool: 'unknown', status: 'error', outcome: 'invalid' },
      { toolset: 'set', tool: 'ok', status: 'error', outcome: 'invalid' },
      { toolset: 'set', tool: 'ok', status: 'error', outcome: 'invalid' },
      { toolset: 'set', tool: 'ok', status: 'no_data', outcome: 'no_data' },
      { toolset: 'set', tool: 'ok', status: 'error', outcome: 'invalid' },
    ]);
    for (const c of calls) expect(c.seconds).toBeGreaterThanOrEqual(0);
  });

  it('labels a call that timed out, and an approved side-effecting call that ran, by what happened', async () => {
    const { metrics, calls } = recorder();
    const slow = tool('slow', { status: 'success', data: '' }, { run: () => new Promise(() => {}) });
    const restart = tool('restart', { status: 'success', data: 'done' }, { sideEffects: true });
    const e = new ToolExecutor({ tools: [slow, restart], metrics, timeoutMs: 20, isApproved: () => true });
    await e.execute({ id: 'c', name: 'slow', arguments: '{}' });
    await e.execute({ id: 'c', name: 'restart', arguments: '{}' });
    expect(calls.map((c) => [c.tool, c.status, c.outcome])).toEqual([
      ['slow', 'error', 'error'],
      ['restart', 'success', 'success'],
    ]);
  });

  it('labels a call whose arguments fail the JSON schema as invalid', async () => {
    const { metrics, calls } = recorder();
    const strict = tool(
      'strict',
      { status: 'success', data: 'x' },
      {
        params: z.looseObject({}),
        inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
      },
    );
    const e = new ToolExecutor({ tools: [strict], metrics });
    expect(await e.execute({ id: 'c', name: 'strict', arguments: '{}' })).toMatchObject({ status: 'error' });
    expect(calls.map((c) => c.outcome)).toEqual(['invalid']);
  });
});
