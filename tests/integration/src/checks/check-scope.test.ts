import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkIssue } from '../../../../src/checks/check-issue.js';
import { CheckSchema } from '../../../../src/config/checks-schema.js';
import { Investigator } from '../../../../src/investigation/investigator.js';
import { PromptRenderer } from '../../../../src/prompts/prompt-renderer.js';
import { decodeCheckpoint, encodeCheckpoint } from '../../../../src/store/checkpoint.js';
import { instancedToolset } from '../../../../src/tools/instanced-toolset.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { Tool, Toolset } from '../../../../src/tools/types.js';
import { startScriptedLlm, toolResults, type Reply, type ScriptedLlm } from '../../../helpers/scripted-llm.js';

// A check's `toolsets` and `instance` (docs/checks.md) keep its run to them: through the Investigator (the real
// prompts, loop and executor) against the scripted model, the tools offered, the calls refused and the instance
// a call goes to.

let llm: ScriptedLlm | undefined;
afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

const ran: string[] = [];
function tool(name: string, where: string): Tool {
  return {
    name,
    description: `${name} on ${where}`,
    params: z.strictObject({}),
    run: async () => {
      ran.push(`${name}@${where}`);
      return { status: 'success', data: `${name} from ${where}` };
    },
  };
}
function server(name: string, toolName: string, where: string): Toolset {
  return {
    name,
    description: name,
    origin: 'builtin',
    enabled: true,
    prerequisites: [],
    tools: [tool(toolName, where)],
  };
}

// Prometheus has two instances named by the issue's `region` label (not `cluster`); kubernetes is one cluster.
const prometheus = instancedToolset(
  [
    { name: 'eu', toolset: server('prometheus', 'prom_query', 'eu') },
    { name: 'us', toolset: server('prometheus', 'prom_query', 'us') },
  ],
  { label: 'region', crossInstance: false, configKey: 'toolsets.prometheus' },
);
const kubernetes = server('kubernetes', 'kubectl_get', 'cluster');
const toolsetOf = new Map([
  ['prom_query', 'prometheus'],
  ['kubectl_get', 'kubernetes'],
]);

async function runCheck(check: Record<string, unknown>, script: Reply[]) {
  ran.length = 0;
  llm = await startScriptedLlm(script);
  const investigator = new Investigator({
    client: new OpenAI({ apiKey: 'test', baseURL: llm.baseUrl, maxRetries: 0 }),
    llm: { model: 'scripted', maxSteps: 6, maxParallelTools: 1, toolCallFormat: 'auto' } as never,
    executor: new ToolExecutor({ tools: [...prometheus.tools, ...kubernetes.tools], toolsetOf }),
    prompts: new PromptRenderer(),
    toolsets: () => ({ toolsets: [{ name: 'prometheus', description: 'metrics' }], unavailable: [] }),
  });
  const config = CheckSchema.parse({ name: 'checkout', question: 'is checkout healthy?', everySeconds: 900, ...check });
  return investigator.investigate(checkIssue(config, 'tick-1', new Date('2026-12-07T10:00:00Z')));
}

const verdict: Reply = {
  toolCalls: [{ name: 'report_check_result', arguments: { status: 'pass', summary: 'fine', evidence: [] }, id: 'v' }],
};
const offered = (i: number) => llm!.requests[i]!.tools!.map((t) => t.function.name).sort();

describe("a check's toolsets and instance", () => {
  it('offers only the tools of its toolsets, refuses a call outside them as data, and keeps that through a checkpoint', async () => {
    const result = await runCheck({ toolsets: ['prometheus'], instance: 'us' }, [
      {
        toolCalls: [
          { name: 'kubectl_get', arguments: {}, id: 'k' },
          { name: 'prom_query', arguments: {}, id: 'p' },
        ],
      },
      verdict,
      { content: 'checkout is healthy' },
    ]);
    expect(result.answer).toBe('checkout is healthy');
    expect(offered(0)).toEqual(['prom_query', 'report_check_result', 'todo_write']);
    expect(offered(1)).toEqual(['prom_query', 'report_check_result', 'todo_write']);
    const results = toolResults(llm!.requests[1]!).map((t) => [t.tool_call_id, t.result.status, t.result.error]);
    expect(results).toEqual([
      ['k', 'error', "refused: kubectl_get is not in this check's toolsets (prometheus); use their tools only"],
      ['p', 'success', undefined],
    ]);
    // The instance the check names is the one queried, though the issue has no `region` label.
    expect(ran).toEqual(['prom_query@us']);
    const resumed = decodeCheckpoint(encodeCheckpoint(result.state));
    expect(resumed.scope).toEqual({ labels: { check: 'checkout' }, instance: 'us', toolsets: ['prometheus'] });
    // A check run's verdict is checkpointed too (a run paused on an approval resumes with it).
    expect(resumed.check).toEqual({ verdict: { status: 'pass', summary: 'fine', evidence: [] }, pushedBack: false });
  });

  it('offers every tool when the check names no toolsets, and the issue label or default picks the instance', async () => {
    const result = await runCheck({}, [
      { toolCalls: [{ name: 'kubectl_get', arguments: {}, id: 'k' }] },
      { toolCalls: [{ name: 'prom_query', arguments: { instance: 'eu' }, id: 'p' }] },
      verdict,
      { content: 'done' },
    ]);
    expect(result.answer).toBe('done');
    expect(offered(0)).toEqual(['kubectl_get', 'prom_query', 'report_check_result', 'todo_write']);
    // No instance and no label: nothing keeps the run to one, so the model's choice goes.
    expect(ran).toEqual(['kubectl_get@cluster', 'prom_query@eu']);
    expect(result.state.scope).toEqual({ labels: { check: 'checkout' } });
  });

  it('refuses a call to another instance than the check names', async () => {
    await runCheck({ instance: 'us' }, [
      { toolCalls: [{ name: 'prom_query', arguments: { instance: 'eu' }, id: 'p' }] },
      verdict,
      { content: 'done' },
    ]);
    const [refused] = toolResults(llm!.requests[1]!);
    expect(refused!.result.status).toBe('error');
    expect(refused!.result.error).toMatch(/^refused: instance eu is not this issue's \(the issue is instance=us/);
    expect(ran).toEqual([]);
  });
});
