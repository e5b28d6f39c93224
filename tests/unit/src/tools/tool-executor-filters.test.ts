import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { Tool, ToolOutput } from '../../../../src/tools/types.js';

const lines = 'alpha 1\nBeta 2\ngamma 3\nbeta 4\n';

function executor(output: ToolOutput, over: Partial<Tool> = {}) {
  const seen: Array<Record<string, unknown>> = [];
  const t: Tool = {
    name: 't',
    description: 't',
    params: z.strictObject({ q: z.string().optional() }),
    run: async (p) => {
      seen.push({ ...p });
      return output;
    },
    ...over,
  };
  return { e: new ToolExecutor({ tools: [t] }), seen };
}
const call = (e: ToolExecutor, args: unknown) => e.execute({ id: 'c', name: 't', arguments: JSON.stringify(args) });

describe('output filters in a tool call', () => {
  it("are taken out of the tool's arguments, applied to its output, and shown with its parameters", async () => {
    const { e, seen } = executor({ status: 'success', data: lines });
    expect(await call(e, { q: 'x', output_grep: 'beta', output_tail: 1 })).toEqual({
      tool: 't',
      status: 'success',
      data: 'beta 4\n',
      params: { q: 'x', output_grep: 'beta', output_tail: 1 },
      elapsedMs: expect.any(Number),
    });
    expect(seen).toEqual([{ q: 'x' }]);
  });

  it('leave the output and the shown parameters alone when none is given', async () => {
    const { e } = executor({ status: 'success', data: lines });
    expect(await call(e, { q: 'x' })).toMatchObject({ data: lines, params: { q: 'x' } });
  });

  it('narrow data by fields', async () => {
    const { e } = executor({
      status: 'success',
      data: {
        items: [
          { name: 'a', uid: 1 },
          { name: 'b', uid: 2 },
        ],
      },
    });
    expect((await call(e, { output_fields: ['items.name'] })).data).toBe('{\n "items.name": [\n  "a",\n  "b"\n ]\n}');
  });

  it('say so when nothing was left of a successful output', async () => {
    const { e } = executor({ status: 'success', data: lines });
    expect(await call(e, { output_grep: 'delta' })).toMatchObject({
      status: 'no_data',
      data: 'nothing left after the output filters',
      params: { output_grep: 'delta' },
    });
    const empty = executor({ status: 'success', data: '' }).e;
    expect(await call(empty, {})).toMatchObject({ status: 'success', data: '' });
  });

  it('keep a tool\'s "no data" message when its output is missing or filtered away', async () => {
    expect(await call(executor({ status: 'no_data', message: 'no pods' }).e, { output_head: 2 })).toMatchObject({
      status: 'no_data',
      data: 'no pods',
    });
    expect(
      await call(executor({ status: 'no_data', data: 'x\n', message: 'nothing' }).e, { output_grep: 'y' }),
    ).toMatchObject({ status: 'no_data', data: 'nothing' });
  });

  it('are refused when invalid, naming the filter, before the tool runs', async () => {
    const { e, seen } = executor({ status: 'success', data: lines });
    expect(await call(e, { q: 'x', output_head: 0 })).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/^invalid arguments: output_head: /),
      params: { q: 'x', output_head: 0 },
    });
    expect(seen).toEqual([]);
  });

  it("are the tool's own when it declares a parameter of that name", async () => {
    const { e, seen } = executor(
      { status: 'success', data: lines },
      { params: z.strictObject({ output_grep: z.string() }) },
    );
    expect(await call(e, { output_grep: 'beta' })).toMatchObject({ data: lines, params: { output_grep: 'beta' } });
    expect(seen).toEqual([{ output_grep: 'beta' }]);
  });

  it('show on a refusal and on a request for approval', async () => {
    const denied = executor(
      { status: 'success', data: lines },
      { verdict: () => ({ decision: 'deny', reason: 'no' }) },
    ).e;
    expect(await call(denied, { q: 'x', output_head: 1 })).toMatchObject({
      status: 'error',
      params: { q: 'x', output_head: 1 },
    });
    const asks = executor({ status: 'success', data: lines }, { sideEffects: true }).e;
    expect(await call(asks, { output_head: 1 })).toMatchObject({
      status: 'approval_required',
      params: { output_head: 1 },
    });
    const fails = executor({ status: 'error', error: 'HTTP 500' }).e;
    expect(await call(fails, { output_head: 1 })).toMatchObject({
      status: 'error',
      error: 'HTTP 500',
      params: { output_head: 1 },
    });
  });

  it('validate what the model sent, not an object\'s prototype (a parameter named "constructor")', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const t: Tool = {
      name: 't',
      description: 't',
      params: z.object({ constructor: z.string().optional() }),
      run: async (p) => {
        seen.push(p);
        return { status: 'success', data: 'ok' };
      },
    };
    const e = new ToolExecutor({ tools: [t] });
    expect(await call(e, { output_head: 1 })).toMatchObject({ status: 'success', data: 'ok\n' });
    expect(seen.map((p) => Object.hasOwn(p, 'constructor'))).toEqual([false]);
  });
});
