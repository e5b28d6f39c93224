import { randomUUID } from 'node:crypto';
import type OpenAI from 'openai';
import type { Config } from '../../src/config/schema.js';
import type { ContextBudget } from '../../src/context/context-budget.js';
import { Investigator } from '../../src/investigation/investigator.js';
import { redactionRules } from '../../src/config/redaction-schema.js';
import type { LoopState } from '../../src/records/loop-state.js';
import type { PromptRenderer } from '../../src/prompts/prompt-renderer.js';
import { hostsIn } from '../../src/render/sanitize-markdown.js';
import { ToolExecutor } from '../../src/tools/tool-executor.js';
import type { Toolset } from '../../src/tools/types.js';
import { commentFor } from '../../src/delivery/comment-for.js';
import type { EvalCase } from './eval-case.js';
import type { JudgeUsage, LlmJudge } from './llm-judge.js';
import { mockToolsets, type MockedCall, type MockedToolsets, type ToolsetOverrides } from './mock-tools.js';
import {
  citedEvidence,
  expectedSectionsMissing,
  judgeContains,
  RCA_SECTIONS,
  sectionsPresent,
  type Evidence,
  type FactVerdict,
} from './score.js';
import type { ToolAliases } from './tool-aliases.js';

/** What every case of a run shares. */
export interface EvalRun {
  config: Config;
  client: OpenAI;
  prompts: PromptRenderer;
  budget: ContextBudget;
  /** Lestrade's toolsets, before prerequisites: the mocks stand in for the systems those check. */
  candidates: Toolset[];
  aliases: ToolAliases;
  judge: LlmJudge | 'contains';
  judgeUsage: JudgeUsage;
}

export interface CaseResult {
  id: string;
  tags: string[];
  model: string;
  /** 1-based, with --repeat. */
  attempt: number;
  passed: boolean;
  /** The share of expected facts present, 0..1. */
  score: number;
  facts: FactVerdict[];
  /** Why it failed: missing facts, an error. */
  reasons: string[];
  /** Worth a look though not failing: unmocked calls, missing sections, no evidence cited. */
  flags: string[];
  sections: string[];
  evidence: Evidence;
  llmCalls: number;
  toolCalls: number;
  unmockedCalls: MockedCall[];
  promptTokens: number;
  completionTokens: number;
  cost: number;
  seconds: number;
  answer: string;
  /** The answer as a ticket comment would carry it (the write-back rendering), for the JSON report. */
  comment?: { heading: string; sections: number };
  error?: string;
}

/** One case, once: the real investigation path with tool execution answered by the case's mocks, then scored. */
export async function runCase(run: EvalRun, c: EvalCase, attempt: number): Promise<CaseResult> {
  const started = performance.now();
  const { investigator, mocked } = investigatorFor(run, c);
  const base = { id: c.id, tags: c.tags, model: run.config.llm.model, attempt };
  let answer: string;
  let state: LoopState;
  try {
    ({ answer, state } = await investigator.investigate(c.issue, {
      ...(c.now ? { now: c.now } : {}),
      ...(c.sections.length ? { sections: c.sections } : {}),
    }));
  } catch (err) {
    return failed(base, c, mocked.calls, (err as Error).message, started);
  }
  // What the tools returned, as they returned it (the messages hold it JSON-encoded).
  const outputs = state.toolCalls.map((r) => r.data ?? r.error ?? '');
  const facts =
    run.judge === 'contains'
      ? judgeContains(answer, c.expected)
      : await run.judge.judge(answer, c.expected, run.judgeUsage);
  const doc = commentFor(
    { id: randomUUID(), issue: c.issue, rca: answer, linkHosts: [...hostsIn(outputs.join('\n'))] },
    { linkHosts: run.config.writeBack.linkHosts },
  );
  const sections = sectionsPresent(answer);
  const evidence = citedEvidence(answer, outputs);
  const unmocked = mocked.calls.filter((k) => k.mock === null);
  const missing = facts.filter((f) => !f.present);
  const sectionReasons = expectedSectionsMissing(answer, c.expectedSections);
  return {
    ...base,
    passed: missing.length === 0 && sectionReasons.length === 0,
    score: facts.length ? (facts.length - missing.length) / facts.length : 1,
    facts,
    reasons: [...missing.map((f) => `missing fact: ${f.fact}`), ...sectionReasons],
    flags: flagsOf(
      c.sections.length ? null : sections,
      evidence,
      unmocked.length,
      state.toolCalls.length,
      c.mocks.length,
    ),
    sections,
    evidence,
    llmCalls: state.usage.llmCalls,
    toolCalls: state.toolCalls.length,
    unmockedCalls: unmocked,
    promptTokens: state.usage.promptTokens,
    completionTokens: state.usage.completionTokens,
    cost: costOf(run.config, state.usage.promptTokens, state.usage.completionTokens),
    seconds: (performance.now() - started) / 1000,
    answer,
    comment: { heading: doc.heading, sections: doc.sections.length },
  };
}

/** The Investigator the service would build, over the case's mocked tools. */
function investigatorFor(run: EvalRun, c: EvalCase): { investigator: Investigator; mocked: MockedToolsets } {
  const { executor, mocked } = caseExecutor(run.config, run.candidates, run.aliases, c);
  const investigator = new Investigator({
    client: run.client,
    llm: run.config.llm,
    executor,
    prompts: run.prompts,
    toolsets: () => ({ toolsets: mocked.toolsets, unavailable: mocked.unavailable }),
    budget: run.budget,
    redaction: redactionRules(run.config.redaction),
  });
  return { investigator, mocked };
}

/** The service's tool executor (validation, approval policy, output shaping) over the case's mocked tools. */
export function caseExecutor(
  config: Config,
  candidates: Toolset[],
  aliases: ToolAliases,
  c: EvalCase,
): { executor: ToolExecutor; mocked: MockedToolsets } {
  const overrides: ToolsetOverrides = { ...config.toolsets.settings, ...c.toolsets.overrides };
  const mocked = mockToolsets(candidates, c.mocks, aliases, overrides, {
    wildcards: c.wildcards,
    offTools: c.toolsets.offTools,
    offRecorded: c.toolsets.offRecorded,
  });
  const settingsApproval = Object.values(config.toolsets.settings).flatMap((s) => s?.approvalRequired ?? []);
  const executor = new ToolExecutor({
    tools: mocked.tools,
    maxOutputChars: config.tools.maxOutputChars,
    timeoutMs: config.tools.timeoutMs,
    approvalRequired: [...mocked.approvalRequired, ...settingsApproval],
    toolsetOf: mocked.toolsetOf,
  });
  return { executor, mocked };
}

/** sections: the four found, or null when the case asked for its own (expected_sections scores those). */
function flagsOf(
  sections: string[] | null,
  evidence: Evidence,
  unmocked: number,
  calls: number,
  mocks: number,
): string[] {
  const flags: string[] = [];
  if (unmocked) flags.push(`${unmocked} unmocked call${unmocked === 1 ? '' : 's'}`);
  if (sections && sections.length < RCA_SECTIONS.length) {
    flags.push(`sections missing: ${RCA_SECTIONS.filter((s) => !sections.includes(s)).join(', ')}`);
  }
  if (mocks > 0 && calls === 0) flags.push('answered without calling a tool');
  else if (evidence.cited === 0) flags.push('cites no evidence from tool outputs');
  return flags;
}

function failed(
  base: Pick<CaseResult, 'id' | 'tags' | 'model' | 'attempt'>,
  c: EvalCase,
  calls: MockedCall[],
  error: string,
  started: number,
): CaseResult {
  return {
    ...base,
    passed: false,
    score: 0,
    facts: c.expected.map((fact) => ({ fact, present: false, reasoning: 'the investigation failed' })),
    reasons: [`investigation failed: ${error}`],
    flags: [],
    sections: [],
    evidence: { checked: 0, cited: 0, examples: [] },
    llmCalls: 0,
    toolCalls: calls.length,
    unmockedCalls: calls.filter((k) => k.mock === null),
    promptTokens: 0,
    completionTokens: 0,
    cost: 0,
    seconds: (performance.now() - started) / 1000,
    answer: '',
    error,
  };
}

/** At the configured price of the model (pricing.models), else 0. */
export function costOf(config: Config, promptTokens: number, completionTokens: number): number {
  const models = config.pricing.models;
  const price = Object.hasOwn(models, config.llm.model) ? models[config.llm.model] : undefined;
  if (!price) return 0;
  return (promptTokens * price.inputPerMillion + completionTokens * price.outputPerMillion) / 1_000_000;
}
