import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toOpenAiTool } from '../../../../src/loop/tool-specs.js';
import { callKey, paramsKey } from '../../../../src/tools/call-key.js';
import { fromInstances, instancedToolset } from '../../../../src/tools/instanced-toolset.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { resolveToolsets } from '../../../../src/tools/toolset-registry.js';
import type { CallScope, Tool, ToolContext, Toolset } from '../../../../src/tools/types.js';

/** A toolset for one server: its tool answers with the server's name, and remembers what it was handed. */
function serverToolset(
  server: string,
  seen: Array<{ server: string; params: unknown; ctx: ToolContext }> = [],
): Toolset {
  return {
    name: 'metrics',
    description: 'Metrics',
    instructions: 'Query metrics.',
    origin: 'builtin',
    enabled: true,
    prerequisites: [{ kind: 'check', run: async () => (server === 'down' ? 'down does not answer' : null) }],
    tools: [
      {
        name: 'metrics_query',
        description: 'query',
        params: z.strictObject({ query: z.string() }),
        verdict: (p) =>
          p.query === 'forbidden' ? { decision: 'deny', reason: `${server} says no` } : { decision: 'allow' },
        run: async (params, ctx) => {
          seen.push({ server, params, ctx });
          return { status: 'success', data: `${server}:${params.query as string}` };
        },
      },
    ],
  };
}

const scoping = { label: 'cluster', crossInstance: false, configKey: 'toolsets.metrics' };
const scope = (cluster?: string): CallScope => ({ labels: cluster ? { cluster } : {} });
/** The JSON Schema of a tool's parameters, as the model sees it. */
const paramsOf = (t: Tool) => (toOpenAiTool(t) as { function: { parameters: unknown } }).function.parameters;

function executorOver(names: string[], opts: { crossInstance?: boolean } = {}) {
  const seen: Array<{ server: string; params: unknown; ctx: ToolContext }> = [];
  const ts = instancedToolset(
    names.map((name) => ({ name, description: `the ${name} cluster`, toolset: serverToolset(name, seen) })),
    { ...scoping, crossInstance: opts.crossInstance ?? false },
  );
  return { ts, seen, exec: new ToolExecutor({ tools: ts.tools }) };
}

describe('one toolset over several instances', () => {
  it('offers one set of tools, with an instance enum described per instance only when there is more than one', () => {
    const two = paramsOf(executorOver(['a', 'b']).ts.tools[0]!) as {
      properties: Record<string, { enum?: string[]; description?: string }>;
      required?: string[];
    };
    expect(two.properties.instance).toMatchObject({ enum: ['a', 'b'] });
    expect(two.properties.instance!.description).toContain('a: the a cluster; b: the b cluster');
    expect(two.required).toEqual(['query']);
    const one = paramsOf(executorOver(['a']).ts.tools[0]!) as { properties: object };
    expect(Object.keys(one.properties)).not.toContain('instance');
    expect(executorOver(['a', 'b']).ts.tools.map((t) => t.name)).toEqual(['metrics_query']);
  });

  it("sends a call to the issue's instance and records it; the instance's tool never sees the instance argument", async () => {
    const { exec, seen } = executorOver(['a', 'b']);
    const r = await exec.execute(
      { id: '1', name: 'metrics_query', arguments: '{"query":"up"}' },
      { scope: scope('b') },
    );
    expect(r).toMatchObject({ status: 'success', data: 'b:up', instance: 'b', params: { query: 'up' } });
    const named = await exec.execute(
      { id: '2', name: 'metrics_query', arguments: '{"query":"up","instance":"b"}' },
      { scope: scope('b') },
    );
    expect(named).toMatchObject({ status: 'success', data: 'b:up', instance: 'b' });
    expect(seen.map((s) => [s.server, s.params, s.ctx.instance])).toEqual([
      ['b', { query: 'up' }, 'b'],
      ['b', { query: 'up' }, 'b'],
    ]);
  });

  it("refuses another cluster's instance as a tool error, running nothing; crossInstance lets it", async () => {
    const { exec, seen } = executorOver(['a', 'b']);
    const call = { id: '1', name: 'metrics_query', arguments: '{"query":"up","instance":"b"}' };
    const r = await exec.execute(call, { scope: scope('a') });
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/^refused: instance b is not this issue's \(the issue is cluster=a, instance a\)/);
    expect(r.error).toContain('toolsets.metrics.crossInstance');
    expect(seen).toEqual([]);
    const open = executorOver(['a', 'b'], { crossInstance: true });
    expect(await open.exec.execute(call, { scope: scope('a') })).toMatchObject({ data: 'b:up', instance: 'b' });
  });

  it("asks the chosen instance's tool for its verdict", async () => {
    const { exec } = executorOver(['a', 'b']);
    const r = await exec.execute(
      { id: '1', name: 'metrics_query', arguments: '{"query":"forbidden","instance":"b"}' },
      { scope: scope() },
    );
    expect(r).toMatchObject({ status: 'error', error: 'refused: b says no', instance: 'b' });
  });

  it("hands the instance's tool the approved call's key of its own arguments", async () => {
    const seen: Array<{ server: string; params: unknown; ctx: ToolContext }> = [];
    const base = serverToolset('a', seen);
    const risky = { ...base, tools: [{ ...base.tools[0]!, sideEffects: true }] };
    const ts = instancedToolset(
      [
        { name: 'a', toolset: risky },
        { name: 'b', toolset: serverToolset('b') },
      ],
      scoping,
    );
    const exec = new ToolExecutor({ tools: ts.tools });
    const args = '{"query":"up","instance":"a"}';
    const r = await exec.execute(
      { id: '1', name: 'metrics_query', arguments: args },
      { scope: scope('a'), approvedCallKey: callKey('metrics_query', args) },
    );
    expect(r).toMatchObject({ status: 'success', instance: 'a' });
    expect(seen[0]!.ctx).toMatchObject({ approved: true, approvedCall: paramsKey('metrics_query', { query: 'up' }) });
  });

  it('is enabled while one instance answers, and answers a call to one that does not with why', async () => {
    const { ts, exec } = executorOver(['a', 'down']);
    const resolved = await resolveToolsets([ts], {}, {});
    expect(resolved.statuses[0]).toMatchObject({ state: 'enabled' });
    const r = await exec.execute(
      { id: '1', name: 'metrics_query', arguments: '{"query":"up","instance":"down"}' },
      { scope: scope() },
    );
    expect(r).toMatchObject({ status: 'error', error: 'instance down is unavailable: down does not answer' });
    const none = instancedToolset([{ name: 'down', toolset: serverToolset('down') }], scoping);
    expect((await resolveToolsets([none], {}, {})).statuses[0]).toMatchObject({
      state: 'disabled',
      reason: 'prerequisite not met: down: down does not answer',
    });
  });
});

describe('fromInstances', () => {
  const build = (i: { name: string }) => serverToolset(i.name);

  it('is null without instances, so the single form is built as it always was', () => {
    expect(fromInstances({}, 'toolsets.metrics', { name: 'default' }, build)).toBeNull();
  });

  it("puts the single form's default instance first, and takes cluster as the label unless told", async () => {
    const ts = fromInstances({ instances: [{ name: 'b' }] }, 'toolsets.metrics', { name: 'default' }, build)!;
    const exec = new ToolExecutor({ tools: ts.tools });
    const call = (cluster: string) =>
      exec.execute({ id: '1', name: 'metrics_query', arguments: '{"query":"q"}' }, { scope: scope(cluster) });
    expect(await call('b')).toMatchObject({ data: 'b:q', instance: 'b' });
    expect(await call('elsewhere')).toMatchObject({ data: 'default:q', instance: 'default' });
    const byRegion = fromInstances(
      { instances: [{ name: 'a' }, { name: 'b' }], instanceLabel: 'region' },
      'toolsets.metrics',
      null,
      build,
    )!;
    const r = await new ToolExecutor({ tools: byRegion.tools }).execute(
      { id: '1', name: 'metrics_query', arguments: '{"query":"q"}' },
      { scope: { labels: { region: 'b', cluster: 'a' } } },
    );
    expect(r).toMatchObject({ data: 'b:q', instance: 'b' });
  });
});
