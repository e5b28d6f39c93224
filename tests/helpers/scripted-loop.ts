import OpenAI from 'openai';
import { afterEach } from 'vitest';
import { z } from 'zod';
import { initialState } from '../../src/records/loop-state.js';
import { runLoop, type LoopOptions, type LoopResult } from '../../src/loop/run-loop.js';
import { ToolExecutor } from '../../src/tools/tool-executor.js';
import type { Tool } from '../../src/tools/types.js';
import { startScriptedLlm, type Reply, type Script, type ScriptedLlm } from './scripted-llm.js';

/** A read-only tool that answers `echo:<text>`. */
export const echoTool: Tool = {
  name: 'echo',
  description: 'echoes its text',
  params: z.strictObject({ text: z.string() }),
  run: async (p) => ({ status: 'success', data: `echo:${p.text as string}` }),
};

/** Options of run(): the loop's own, and `maxRetries` for the SDK client (0 unless given). */
export type ScriptedRunOptions = Partial<Omit<LoopOptions, 'client' | 'model' | 'executor'>> & {
  maxRetries?: number;
  /** The user message (default "investigate"). */
  initial?: string;
  /** The state's redaction placeholders, as a resumed run's checkpoint holds them. */
  placeholders?: Record<string, string>;
};

export interface ScriptedLoop {
  /** The scripted model the test started last (by run() or by hand); closed after each test. */
  llm: ScriptedLlm | undefined;
  /**
   * Starts a scripted model and runs the loop against it (model "scripted") from a system prompt
   * "sys" and the user message "investigate", with `tools`; `opts` are passed on to the loop.
   */
  run(script: Reply[] | Script, tools: Tool[], opts?: ScriptedRunOptions): Promise<LoopResult>;
}

/** Call once at the top level of a loop test file: registers the afterEach that closes the model. */
export function scriptedLoop(): ScriptedLoop {
  const t: ScriptedLoop = {
    llm: undefined,
    async run(script, tools, opts = {}) {
      t.llm = await startScriptedLlm(script);
      const client = new OpenAI({ apiKey: 'test', baseURL: t.llm.baseUrl, maxRetries: opts.maxRetries ?? 0 });
      const { initial = 'investigate', placeholders, maxRetries: _retries, ...loopOpts } = opts;
      const state = initialState([
        { role: 'system', content: 'sys' },
        { role: 'user', content: initial },
      ]);
      if (placeholders) state.redaction = { placeholders: { ...placeholders } };
      return runLoop(state, { client, model: 'scripted', executor: new ToolExecutor({ tools }), ...loopOpts });
    },
  };
  afterEach(async () => {
    await t.llm?.close();
    t.llm = undefined;
  });
  return t;
}
