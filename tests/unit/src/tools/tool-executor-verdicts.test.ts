import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callKey, paramsKey } from '../../../../src/tools/call-key.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { CallVerdict, Tool, ToolContext } from '../../../../src/tools/types.js';

/** A tool that records the context of each run. */
function recording(name: string, over: Partial<Tool> = {}) {
  const runs: ToolContext[] = [];
  const t: Tool = {
    name,
    description: name,
    params: z.strictObject({ target: z.string() }),
    run: async (_p, ctx) => {
      runs.push(ctx);
      return { status: 'success', data: 'ran' };
    },
    ...over,
  };
  return { tool: t, runs };
}
const call = (e: ToolExecutor, name: string, args: string, approvedCallKey?: string) =>
  e.execute({ id: 'c1', name, arguments: args }, approvedCallKey === undefined ? {} : { approvedCallKey });

describe("a tool's own verdict on a call", () => {
  it("refuses with the tool's reason and never runs it", async () => {
    const { tool, runs } = recording('bash', { verdict: () => ({ decision: 'deny', reason: 'rm is not allowed' }) });
    const e = new ToolExecutor({ tools: [tool], isApproved: () => true });
    expect(await call(e, 'bash', '{"target":"rm -rf /"}')).toEqual({
      tool: 'bash',
      status: 'error',
      error: 'refused: rm is not allowed',
      params: { target: 'rm -rf /' },
      elapsedMs: expect.any(Number),
    });
    expect(runs).toEqual([]);
  });

  it("asks a human with the tool's reason, and sees the validated parameters", async () => {
    const seen: unknown[] = [];
    const { tool, runs } = recording('bash', {
      verdict: async (p) => {
        seen.push(p);
        return { decision: 'ask', reason: 'writes a file' };
      },
    });
    expect(await call(new ToolExecutor({ tools: [tool] }), 'bash', '{"target":"touch x"}')).toMatchObject({
      status: 'approval_required',
      error: 'writes a file',
    });
    expect(seen).toEqual([{ target: 'touch x' }]);
    expect(runs).toEqual([]);
  });

  it('refuses a call whose check threw, saying why', async () => {
    const { tool, runs } = recording('bash', {
      verdict: () => {
        throw new Error('parser crashed');
      },
    });
    expect(
      await call(new ToolExecutor({ tools: [tool], isApproved: () => true }), 'bash', '{"target":"ls"}'),
    ).toMatchObject({ status: 'error', error: 'refused: the call could not be checked: parser crashed' });
    expect(runs).toEqual([]);
  });

  it('runs an allowed call of a read-only tool without approval', async () => {
    const { tool, runs } = recording('bash', { verdict: (): CallVerdict => ({ decision: 'allow' }) });
    expect(await call(new ToolExecutor({ tools: [tool] }), 'bash', '{"target":"ls"}')).toMatchObject({
      status: 'success',
      data: 'ran',
    });
    expect(runs.map((c) => [c.approved, c.approvedCall])).toEqual([[false, undefined]]);
  });

  it('still asks for an allowed call of a side-effecting tool', async () => {
    const { tool } = recording('restart', { sideEffects: true, verdict: () => ({ decision: 'allow' }) });
    expect(await call(new ToolExecutor({ tools: [tool] }), 'restart', '{"target":"api"}')).toMatchObject({
      status: 'approval_required',
    });
  });
});

describe("the toolset's approvalRequired list", () => {
  it('makes every call of a listed tool wait for a human, and only of listed tools', async () => {
    const listed = recording('delete_pod');
    const other = recording('get_pod');
    const e = new ToolExecutor({ tools: [listed.tool, other.tool], approvalRequired: ['delete_pod'] });
    expect(await call(e, 'delete_pod', '{"target":"p"}')).toMatchObject({
      status: 'approval_required',
      error: "delete_pod is on its toolset's approvalRequired list",
      params: { target: 'p' },
    });
    expect(listed.runs).toEqual([]);
    expect(await call(e, 'get_pod', '{"target":"p"}')).toMatchObject({ status: 'success' });
  });
});

describe("a human's approval of one call", () => {
  it('runs exactly the approved call (same tool, same arguments in any key order), telling the tool which', async () => {
    const { tool, runs } = recording('restart', {
      sideEffects: true,
      params: z.strictObject({ target: z.string(), force: z.boolean() }),
    });
    const e = new ToolExecutor({ tools: [tool] });
    const approved = callKey('restart', '{"target":"api","force":true}');
    expect(await call(e, 'restart', '{"force":true,"target":"api"}', approved)).toMatchObject({
      status: 'success',
      data: 'ran',
    });
    expect(runs.map((c) => [c.approved, c.approvedCall])).toEqual([
      [true, paramsKey('restart', { target: 'api', force: true })],
    ]);
  });

  it('does not stretch to another call: other arguments still ask', async () => {
    const { tool, runs } = recording('restart', { sideEffects: true });
    const e = new ToolExecutor({ tools: [tool] });
    expect(await call(e, 'restart', '{"target":"db"}', callKey('restart', '{"target":"api"}'))).toMatchObject({
      status: 'approval_required',
    });
    expect(await call(e, 'restart', '{"target":"db"}', callKey('other', '{"target":"db"}'))).toMatchObject({
      status: 'approval_required',
    });
    expect(runs).toEqual([]);
  });
});

describe("the investigation's signal", () => {
  it("reaches the running tool when cancelled, and a cancelled investigation's tool starts aborted", async () => {
    const reasons: unknown[] = [];
    const t: Tool = {
      name: 'wait',
      description: 'w',
      params: z.strictObject({}),
      run: (_p, ctx) =>
        new Promise((resolve) => {
          const done = () => {
            reasons.push(ctx.signal.reason);
            resolve({ status: 'error', error: 'cancelled' });
          };
          if (ctx.signal.aborted) done();
          else ctx.signal.addEventListener('abort', done);
        }),
    };
    const e = new ToolExecutor({ tools: [t], timeoutMs: 5_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort('user cancelled'), 50);
    const started = Date.now();
    expect(await e.execute({ id: 'c', name: 'wait', arguments: '{}' }, { signal: controller.signal })).toMatchObject({
      status: 'error',
      error: 'cancelled',
    });
    expect(Date.now() - started).toBeLessThan(2_000);
    const gone = new AbortController();
    gone.abort('already');
    expect(await e.execute({ id: 'c', name: 'wait', arguments: '{}' }, { signal: gone.signal })).toMatchObject({
      status: 'error',
    });
    expect(reasons).toEqual(['user cancelled', 'already']);
  });
});
