import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { initialState } from '../../../../src/records/loop-state.js';
import { openTasksPushBack, planToolSpec, runTodoWrite, TODO_WRITE } from '../../../../src/loop/plan-tool.js';
import { runLoop } from '../../../../src/loop/run-loop.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { startScriptedLlm, toolResults, type Reply, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { echoTool as echo } from '../../../helpers/scripted-loop.js';

// The plan tool (todo_write) on its own and in the loop (run-loop.ts with `plan: true`). The whole
// service's view of it is tests/integration/src/loop/plan-tool.test.ts.

const task = (id: string, status: string, content = `do ${id}`) => ({ id, content, status });
const write = (tasks: unknown[]) => JSON.stringify({ tasks });

describe('planToolSpec', () => {
  it('describes todo_write with a strict JSON schema of the tasks, without $schema', () => {
    const spec = planToolSpec();
    expect(spec.type).toBe('function');
    const fn = (spec as { function: { name: string; description: string; parameters: Record<string, unknown> } })
      .function;
    expect(fn.name).toBe(TODO_WRITE);
    expect(TODO_WRITE).toBe('todo_write');
    expect(fn.description).toMatch(/^Record your investigation plan as tasks, .*at most one in_progress\.$/);
    expect(fn.parameters).not.toHaveProperty('$schema');
    expect(fn.parameters).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['tasks'],
      properties: {
        tasks: {
          type: 'array',
          maxItems: 50,
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'content', 'status'],
            properties: {
              id: { type: 'string', minLength: 1, maxLength: 64 },
              content: { type: 'string', minLength: 1, maxLength: 500 },
              status: { enum: ['pending', 'in_progress', 'completed'] },
            },
          },
        },
      },
    });
    // Built once: the same object on every step.
    expect(planToolSpec()).toBe(spec);
  });
});

describe('runTodoWrite', () => {
  it('replaces the plan and says how many tasks are still open', () => {
    const state = initialState([]);
    state.plan = [task('old', 'pending')] as never;
    const tasks = [task('a', 'completed'), task('b', 'in_progress'), task('c', 'pending')];
    const r = runTodoWrite(state, write(tasks));
    expect(r).toMatchObject({
      tool: 'todo_write',
      status: 'success',
      data: 'plan saved: 3 tasks, 2 still open',
      params: { tasks },
    });
    expect(r.elapsedMs).toBeGreaterThanOrEqual(0);
    expect(r.elapsedMs).toBeLessThan(1_000);
    expect(state.plan).toEqual(tasks);
  });

  it('takes empty arguments as an empty object (then refuses it: tasks are required)', () => {
    const state = initialState([]);
    const r = runTodoWrite(state, '  ');
    expect(r).toMatchObject({ status: 'error', params: {} });
    expect(r.error).toMatch(/^invalid arguments: .*tasks/);
    expect(state.plan).toBeUndefined();
  });

  it('refuses arguments that are not JSON and changes nothing', () => {
    const state = initialState([]);
    expect(runTodoWrite(state, '{"tasks": [')).toEqual({
      tool: 'todo_write',
      status: 'error',
      error: 'arguments are not valid JSON',
      params: {},
      elapsedMs: expect.any(Number),
    });
    expect(state.plan).toBeUndefined();
  });

  it('refuses a bad task naming the field, and echoes the arguments it got', () => {
    const state = initialState([]);
    const args = { tasks: [task('a', 'done')] };
    const r = runTodoWrite(state, JSON.stringify(args));
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/^invalid arguments: tasks\.0\.status/);
    expect(r.params).toEqual(args);
    // Arguments that are JSON but no object are echoed as {}.
    expect(runTodoWrite(state, '"tasks"').params).toEqual({});
    expect(runTodoWrite(state, 'null').params).toEqual({});
    expect(state.plan).toBeUndefined();
  });

  it('holds the limits: ids 1–64 characters, content 1–500, at most 50 tasks', () => {
    const state = initialState([]);
    const ok = (tasks: unknown[]) => runTodoWrite(state, write(tasks)).status;
    expect(ok([task('x'.repeat(64), 'pending')])).toBe('success');
    expect(ok([task('x'.repeat(65), 'pending')])).toBe('error');
    expect(ok([task('', 'pending')])).toBe('error');
    expect(ok([task('a', 'pending', 'c'.repeat(500))])).toBe('success');
    expect(ok([task('a', 'pending', 'c'.repeat(501))])).toBe('error');
    expect(ok([task('a', 'pending', '')])).toBe('error');
    const many = (n: number) => Array.from({ length: n }, (_, i) => task(`t${i}`, 'pending'));
    expect(ok(many(50))).toBe('success');
    expect(ok(many(51))).toBe('error');
    expect(ok([{ ...task('a', 'pending'), extra: 1 }])).toBe('error');
    expect(runTodoWrite(state, JSON.stringify({ tasks: [], more: 1 })).status).toBe('error');
  });

  it('refuses a task id used twice, naming it', () => {
    const state = initialState([]);
    const r = runTodoWrite(state, write([task('a', 'pending'), task('b', 'pending'), task('a', 'completed')]));
    expect(r).toMatchObject({ status: 'error', error: 'invalid arguments: task id a is used twice', params: {} });
    expect(state.plan).toBeUndefined();
  });
});

describe('openTasksPushBack', () => {
  it('names the open tasks once, and then lets the answer stand', () => {
    const state = initialState([]);
    state.plan = [
      task('a', 'completed'),
      task('b', 'pending', 'check disk'),
      task('c', 'in_progress', 'read logs'),
    ] as never;
    const text = openTasksPushBack(state);
    expect(text).toBe(
      'Your plan still has open tasks:\n- b: check disk (pending)\n- c: read logs (in_progress)\n\n' +
        'Do them now (or, if one cannot be done or is no longer needed, mark it completed with todo_write and ' +
        'say why), then give the root-cause analysis.',
    );
    expect(state.planPushedBack).toBe(true);
    expect(openTasksPushBack(state)).toBeNull();
  });

  it('lets the answer stand with no plan or with every task completed', () => {
    const none = initialState([]);
    expect(openTasksPushBack(none)).toBeNull();
    expect(none.planPushedBack).toBeUndefined();
    const done = initialState([]);
    done.plan = [task('a', 'completed')] as never;
    expect(openTasksPushBack(done)).toBeNull();
    expect(done.planPushedBack).toBeUndefined();
  });
});

describe('runLoop with a plan', () => {
  let llm: ScriptedLlm | undefined;
  afterEach(async () => {
    await llm?.close();
    llm = undefined;
  });

  async function loopOn(script: Reply[], plan: boolean) {
    llm = await startScriptedLlm(script);
    const client = new OpenAI({ apiKey: 'test', baseURL: llm.baseUrl, maxRetries: 0 });
    const state = initialState([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'investigate' },
    ]);
    return runLoop(state, { client, model: 'scripted', executor: new ToolExecutor({ tools: [echo] }), plan });
  }

  const planWrite: Reply = {
    toolCalls: [{ name: 'todo_write', arguments: { tasks: [task('a', 'pending', 'check disk')] } }],
  };

  it('offers todo_write first, runs it itself, sends an answer with open tasks back once', async () => {
    const result = await loopOn([planWrite, { content: 'too early' }, { content: 'RCA' }], true);
    expect(llm!.requests[0]!.tools!.map((t) => t.function.name)).toEqual(['todo_write', 'echo']);
    expect(toolResults(llm!.requests[1]!)[0]!.result).toMatchObject({ status: 'success' });
    // The answer given with task a open is sent back (the pushBack mutants), then the next one stands.
    expect(llm!.requests[2]!.messages.at(-1)).toMatchObject({ role: 'user' });
    expect(llm!.requests[2]!.messages.at(-1)!.content).toMatch(/^Your plan still has open tasks:\n- a: check disk/);
    expect(result).toMatchObject({ answer: 'RCA', finishReason: 'answer' });
    expect(result.state.plan).toEqual([task('a', 'pending', 'check disk')]);
    expect(result.state.toolCalls).toHaveLength(1);
  });

  it('writes the plan twice without the repeat refusal', async () => {
    const result = await loopOn([planWrite, planWrite, { content: 'RCA' }, { content: 'RCA again' }], true);
    expect(result.state.toolCalls.map((c) => c.status)).toEqual(['success', 'success']);
    expect(result.answer).toBe('RCA again');
  });

  it('without a plan: no todo_write offered, a call to it is an unknown tool, an answer stands', async () => {
    const result = await loopOn([planWrite, { content: 'RCA' }], false);
    expect(llm!.requests[0]!.tools!.map((t) => t.function.name)).toEqual(['echo']);
    expect(result.state.toolCalls[0]).toMatchObject({ tool: 'todo_write', status: 'error' });
    expect(result.state.plan).toBeUndefined();
    expect(result).toMatchObject({ answer: 'RCA', finishReason: 'answer' });
    expect(llm!.requests).toHaveLength(2);
  });
});
