import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { forModel } from '../../../../src/records/tool-result.js';
import { readsOutside } from '../../../../src/tools/reads-outside.js';
import { shapeOutput } from '../../../../src/tools/shape-output.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { Tool, ToolContext, ToolOutput } from '../../../../src/tools/types.js';

const tool = (
  name: string,
  run: (p: Record<string, unknown>, ctx: ToolContext) => Promise<ToolOutput>,
  over: Partial<Tool> = {},
): Tool => ({
  name,
  description: `${name} tool`,
  params: z.strictObject({ text: z.string().optional() }),
  run,
  ...over,
});
const call = (e: ToolExecutor, name: string, args: string) => e.execute({ id: 'c1', name, arguments: args });

describe('ToolExecutor lookup and arguments', () => {
  it('names the tools there are when the model asks for one that is not', async () => {
    const e = new ToolExecutor({
      tools: [
        tool('alpha', async () => ({ status: 'success', data: 'a' })),
        tool('beta', async () => ({ status: 'success', data: 'b' })),
      ],
    });
    expect(e.tools.map((t) => t.name)).toEqual(['alpha', 'beta']);
    expect(await call(e, 'gamma', '{"text":"x"}')).toEqual({
      tool: 'gamma',
      status: 'error',
      error: 'unknown tool "gamma"; available: alpha, beta',
      params: {},
      elapsedMs: expect.any(Number),
    });
  });

  it('takes empty or blank arguments as {}', async () => {
    const seen: unknown[] = [];
    const e = new ToolExecutor({
      tools: [
        tool('t', async (p) => {
          seen.push(p);
          return { status: 'success', data: 'ok' };
        }),
      ],
    });
    for (const args of ['', '   ']) expect(await call(e, 't', args)).toMatchObject({ status: 'success', params: {} });
    expect(seen).toEqual([{}, {}]);
  });

  it('refuses arguments that are not JSON, or not an object, keeping what the model sent when it was an object', async () => {
    const e = new ToolExecutor({ tools: [tool('t', async () => ({ status: 'success', data: 'ok' }))] });
    expect(await call(e, 't', '{oops')).toMatchObject({
      status: 'error',
      error: 'arguments are not valid JSON',
      params: {},
    });
    for (const [args, kind] of [
      ['"text"', 'string'],
      ['42', 'number'],
      ['null', 'null'],
      ['[1]', 'array'],
    ] as const) {
      const r = await call(e, 't', args);
      expect(r, args).toMatchObject({
        status: 'error',
        error: `invalid arguments: (root): Invalid input: expected object, received ${kind}`,
      });
      expect(r.params, args).toEqual(kind === 'array' ? [1] : {});
    }
    expect(await call(e, 't', '{"text":5,"extra":1}')).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/^invalid arguments: /),
      params: { text: 5, extra: 1 },
    });
  });
});

describe('ToolExecutor running a tool', () => {
  it('hands the validated parameters over, read-only tools never approved, and times the call', async () => {
    let ctxSeen: ToolContext | undefined;
    const e = new ToolExecutor({
      tools: [
        tool('slow', async (_p, ctx) => {
          ctxSeen = ctx;
          await new Promise((r) => setTimeout(r, 120));
          return { status: 'success', data: 'done' };
        }),
      ],
      isApproved: () => true,
    });
    const r = await call(e, 'slow', '{"text":"x"}');
    expect(r).toEqual({
      tool: 'slow',
      status: 'success',
      data: 'done',
      params: { text: 'x' },
      elapsedMs: expect.any(Number),
    });
    expect(r.elapsedMs).toBeGreaterThanOrEqual(100);
    expect(r.elapsedMs).toBeLessThan(5_000);
    expect(Number.isInteger(r.elapsedMs)).toBe(true);
    expect(ctxSeen!.approved).toBe(false);
    expect(ctxSeen!.signal.aborted).toBe(false);
  });

  it('runs a side-effecting tool only when approved, telling it so, and asks for approval otherwise', async () => {
    const asked: Array<[string, Record<string, unknown>]> = [];
    let approvedSeen: boolean | undefined;
    const restart = tool(
      'restart',
      async (_p, ctx) => {
        approvedSeen = ctx.approved;
        return { status: 'success', data: 'restarted' };
      },
      { sideEffects: true },
    );
    const never = new ToolExecutor({ tools: [restart] });
    expect(await call(never, 'restart', '{"text":"api"}')).toEqual({
      tool: 'restart',
      status: 'approval_required',
      error: "restart has side effects and needs a human's approval",
      params: { text: 'api' },
      elapsedMs: expect.any(Number),
    });
    expect(approvedSeen).toBeUndefined();
    const yes = new ToolExecutor({
      tools: [restart],
      isApproved: (t, p) => {
        asked.push([t.name, p]);
        return true;
      },
    });
    expect(await call(yes, 'restart', '{"text":"api"}')).toMatchObject({ status: 'success', data: 'restarted' });
    expect(approvedSeen).toBe(true);
    expect(asked).toEqual([['restart', { text: 'api' }]]);
  });

  it('reports what a tool threw as an error result, Error or not', async () => {
    const e = new ToolExecutor({
      tools: [
        tool('boom', async () => {
          throw new Error('kaput');
        }),
        tool('odd', async () => {
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- the case: a tool that throws a non-Error
          throw 'a string';
        }),
      ],
    });
    expect(await call(e, 'boom', '{}')).toMatchObject({ status: 'error', error: 'kaput', params: {} });
    expect(await call(e, 'odd', '{}')).toMatchObject({ status: 'error', error: 'a string' });
  });

  it('passes an error the tool returned through with its parameters', async () => {
    const e = new ToolExecutor({ tools: [tool('fails', async () => ({ status: 'error', error: 'HTTP 500' }))] });
    expect(await call(e, 'fails', '{"text":"q"}')).toEqual({
      tool: 'fails',
      status: 'error',
      error: 'HTTP 500',
      params: { text: 'q' },
      elapsedMs: expect.any(Number),
    });
  });

  it('gives a tool a minute by default', async () => {
    const e = new ToolExecutor({
      tools: [
        tool('t', async () => {
          await new Promise((r) => setTimeout(r, 50));
          return { status: 'success', data: 'in time' };
        }),
      ],
    });
    expect(await call(e, 't', '{}')).toMatchObject({ status: 'success', data: 'in time' });
  });

  it('gives up on a tool after its timeout, aborting it, even when it settles on abort', async () => {
    let aborted = false;
    const e = new ToolExecutor({
      timeoutMs: 80,
      tools: [
        tool(
          'hang',
          (_p, ctx) =>
            new Promise((resolve) =>
              ctx.signal.addEventListener('abort', () => {
                aborted = true;
                resolve({ status: 'success', data: 'too late' });
              }),
            ),
        ),
      ],
    });
    const started = Date.now();
    expect(await call(e, 'hang', '{}')).toMatchObject({ status: 'error', error: 'timed out after 80 ms' });
    expect(aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe('ToolExecutor timers', () => {
  it('stops the timeout once the tool is done: its signal is never aborted afterwards', async () => {
    let signal: AbortSignal | undefined;
    const e = new ToolExecutor({
      timeoutMs: 50,
      tools: [
        tool('quick', async (_p, ctx) => {
          signal = ctx.signal;
          return { status: 'success', data: 'ok' };
        }),
      ],
    });
    expect(await call(e, 'quick', '{}')).toMatchObject({ status: 'success' });
    await new Promise((r) => setTimeout(r, 120));
    expect(signal!.aborted).toBe(false);
  });
});

describe('ToolExecutor output', () => {
  const run = (output: ToolOutput, maxOutputChars?: number) =>
    call(new ToolExecutor({ tools: [tool('t', async () => output)], maxOutputChars }), 't', '{}');

  it('keeps text as it is and shows data as indented JSON', async () => {
    expect(await run({ status: 'success', data: 'plain\ntext' })).toMatchObject({ data: 'plain\ntext' });
    expect((await run({ status: 'success', data: { a: [1, 2] } })).data).toBe('{\n "a": [\n  1,\n  2\n ]\n}');
    expect(await run({ status: 'success', data: 'x' })).not.toHaveProperty('truncated');
  });

  it('caps output at 20,000 characters by default, or as configured, and says so', async () => {
    const big = 'x'.repeat(25_000);
    const capped = await run({ status: 'success', data: big });
    expect(capped).toMatchObject({ truncated: true, data: `${'x'.repeat(20_000)}\n…[truncated 5000 characters]` });
    expect(await run({ status: 'success', data: big }, 24_999)).toMatchObject({
      truncated: true,
      data: `${'x'.repeat(24_999)}\n…[truncated 1 characters]`,
    });
    expect(await run({ status: 'success', data: big }, 25_000)).not.toHaveProperty('truncated');
  });

  it('reports "no data" with the tool\'s message, a default, or the data it found', async () => {
    expect(await run({ status: 'no_data', message: 'no pods match' })).toMatchObject({
      status: 'no_data',
      data: 'no pods match',
    });
    expect(await run({ status: 'no_data' })).toMatchObject({ status: 'no_data', data: 'no data found' });
    expect(await run({ status: 'no_data', data: 'empty list', message: 'ignored' })).toMatchObject({
      status: 'no_data',
      data: 'empty list',
    });
  });
});

describe('shapeOutput', () => {
  it('keeps text up to the limit and cuts what is over, counting what it dropped', () => {
    expect(shapeOutput('abc', 3)).toEqual({ text: 'abc', truncated: false });
    expect(shapeOutput('abcd', 3)).toEqual({ text: 'abc\n…[truncated 1 characters]', truncated: true });
    expect(shapeOutput({ k: 'v' }, 100)).toEqual({ text: '{\n "k": "v"\n}', truncated: false });
    expect(shapeOutput('', 0)).toEqual({ text: '', truncated: false });
  });
});

describe('ToolExecutor and links a result vouches for', () => {
  const ok =
    (over: Partial<ToolOutput> = {}) =>
    () =>
      Promise.resolve({ status: 'success', data: 'see https://grafana.internal/d/1', ...over } as ToolOutput);
  const empty = () => Promise.resolve({ status: 'no_data', message: 'none' } as ToolOutput);

  it('marks a result of a tool that reads an outside system, unless the result itself says it does not', async () => {
    const e = new ToolExecutor({
      tools: [
        tool('reader', ok(), { vouchesForLinks: true }),
        tool('reader_empty', empty, { vouchesForLinks: true }),
        tool('echo', ok()),
        tool('echo_false', ok(), { vouchesForLinks: false }),
        tool('pipeline_echo', ok({ vouches: false }), { vouchesForLinks: true }),
        tool('pipeline_reader', ok({ vouches: true })),
        tool('failing', () => Promise.resolve({ status: 'error', error: 'https://x.example' }), {
          vouchesForLinks: true,
        }),
      ],
    });
    const vouches = async (name: string) => (await call(e, name, '{}')).vouches;
    expect(await vouches('reader')).toBe(true);
    expect(await vouches('reader_empty')).toBe(true);
    expect(await vouches('echo')).toBeUndefined();
    expect(await vouches('echo_false')).toBeUndefined();
    expect(await vouches('pipeline_echo')).toBeUndefined();
    expect(await vouches('pipeline_reader')).toBe(true);
    expect(await vouches('failing')).toBeUndefined();
  });

  it('never tells the model (forModel leaves it out, and who decided)', async () => {
    const e = new ToolExecutor({ tools: [tool('reader', ok(), { vouchesForLinks: true })] });
    const result = await call(e, 'reader', '{}');
    expect(JSON.parse(forModel(result))).toEqual({
      tool: 'reader',
      status: 'success',
      data: 'see https://grafana.internal/d/1',
      params: {},
      elapsedMs: expect.any(Number),
    });
    expect(
      JSON.parse(forModel({ ...result, vouches: undefined, decidedBy: { via: 'api', user: 'u' } })),
    ).not.toHaveProperty('decidedBy');
  });

  it('readsOutside marks every tool it is given, keeping the rest of each', () => {
    const [a] = readsOutside([tool('a', ok(), { sideEffects: true })]);
    expect(a).toMatchObject({ name: 'a', sideEffects: true, vouchesForLinks: true });
  });
});
