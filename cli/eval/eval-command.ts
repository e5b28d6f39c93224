import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pLimit from 'p-limit';
import type { Config } from '../../src/config/schema.js';
import { ConfigError, InputError } from '../../src/errors.js';
import { createLlmClient, isLlmConfigured } from '../../src/llm/create-client.js';
import { PromptRenderer } from '../../src/prompts/prompt-renderer.js';
import { builtinToolsets, yamlToolsets } from '../../toolsets/index.js';
import { contextBudget } from '../build-investigator.js';
import { formatCompare, readHolmesResults } from './compare.js';
import { findCases, type EvalCase } from './eval-case.js';
import { LlmJudge, type JudgeUsage } from './llm-judge.js';
import { formatReport, passRate, progressLine } from './report.js';
import { runCase, type CaseResult, type EvalRun } from './run-case.js';
import { loadAliases } from './tool-aliases.js';

export interface EvalOptions {
  /** Comma-separated: each model runs every case. */
  model?: string;
  judgeModel?: string;
  /** "contains": plain fact matching. */
  judge?: string;
  filter?: string;
  repeat?: number;
  parallel?: number;
  json?: string;
  /** Percent, 0..100. */
  minPass?: number;
  /** Replay every recorded call instead of investigating (replay-command.ts). */
  replay?: boolean;
  /** HolmesGPT's published result file: one table of both runners' pass rates per case (compare.ts). */
  compare?: string;
}

export interface EvalIo {
  out: (s: string) => void;
  /** The progress bar goes here when it is a terminal. */
  progress?: { isTTY?: boolean; write: (s: string) => unknown };
  env: Record<string, string | undefined>;
}

/** `lestrade eval [DIR...]`: returns the exit status (1 under --min-pass). */
export async function evalCommand(dirs: string[], opts: EvalOptions, config: Config, io: EvalIo): Promise<number> {
  const cases = selectCases(findCases(dirs.length ? dirs : ['evals']), opts.filter);
  if (!isLlmConfigured(config.llm)) {
    throw new ConfigError('no LLM configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible server)');
  }
  if (opts.judge !== undefined && opts.judge !== 'contains') {
    throw new InputError(
      '',
      `--judge ${opts.judge}: the only named judge is "contains"; use --judge-model M for an LLM judge`,
    );
  }
  const models = (opts.model ?? config.llm.model)
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  const aliases = loadAliases(dirs.map((d) => join(d, 'tool-aliases.yaml')));
  const theirs = opts.compare === undefined ? null : readHolmesResults(opts.compare);
  const runnable = cases.filter((c) => !c.skip);
  for (const c of cases.filter((k) => k.skip)) io.out(`skipped ${c.id}: ${c.skip}\n`);
  const repeat = opts.repeat ?? 1;
  const total = runnable.length * repeat * models.length;
  const results: CaseResult[] = [];
  const judgeUsage: JudgeUsage = { calls: 0, promptTokens: 0, completionTokens: 0 };
  const tty = io.progress?.isTTY === true;
  const limit = pLimit(opts.parallel ?? 4);
  for (const model of models) {
    const run = await prepareRun({ ...config, llm: { ...config.llm, model } }, opts, io.env, aliases);
    run.judgeUsage = judgeUsage;
    const jobs = runnable.flatMap((c) => Array.from({ length: repeat }, (_v, i) => [c, i + 1] as const));
    await Promise.all(
      jobs.map(([c, attempt]) =>
        limit(async () => {
          results.push(await runCase(run, c, attempt));
          if (tty) io.progress!.write(progressLine(results.length, total, results.filter((r) => !r.passed).length));
        }),
      ),
    );
  }
  if (tty) io.progress!.write('\n');
  results.sort((a, b) => a.model.localeCompare(b.model) || a.id.localeCompare(b.id) || a.attempt - b.attempt);
  io.out(formatReport(results, repeat));
  if (theirs) io.out(formatCompare(results, theirs));
  if (judgeUsage.calls) {
    io.out(
      `\njudge: ${judgeUsage.calls} calls, ${judgeUsage.promptTokens}/${judgeUsage.completionTokens} tokens in/out\n`,
    );
  }
  if (opts.json) writeJson(opts.json, results, opts, judgeUsage);
  const rate = passRate(results) * 100;
  if (opts.minPass !== undefined && rate < opts.minPass) {
    io.out(`pass rate ${rate.toFixed(1)}% is below --min-pass ${opts.minPass}%\n`);
    return 1;
  }
  return 0;
}

/** --filter: a case whose tags include it, or whose id contains it; comma-separated for any of several. */
export function selectCases(cases: EvalCase[], filter: string | undefined): EvalCase[] {
  if (!filter) return cases;
  const words = filter
    .split(',')
    .map((w) => w.trim())
    .filter(Boolean);
  const picked = cases.filter((c) => words.some((w) => c.tags.includes(w) || c.id.includes(w)));
  if (picked.length === 0) throw new InputError('', `--filter ${filter}: no case has that tag or name`);
  return picked;
}

async function prepareRun(
  config: Config,
  opts: EvalOptions,
  env: Record<string, string | undefined>,
  aliases: EvalRun['aliases'],
): Promise<EvalRun> {
  const client = createLlmClient(config.llm);
  const yaml = yamlToolsets(config, env);
  const judge =
    opts.judgeModel && opts.judge !== 'contains'
      ? new LlmJudge(client, opts.judgeModel, config.templatesDir)
      : 'contains';
  return {
    config,
    client,
    prompts: new PromptRenderer(config.templatesDir),
    budget: await contextBudget(config),
    candidates: [...builtinToolsets(config), ...yaml.toolsets],
    aliases,
    judge,
    judgeUsage: { calls: 0, promptTokens: 0, completionTokens: 0 },
  };
}

function writeJson(file: string, results: CaseResult[], opts: EvalOptions, judgeUsage: JudgeUsage): void {
  if (!existsSync(dirname(file))) throw new InputError('', `--json ${file}: folder ${dirname(file)} does not exist`);
  const report = {
    judge: opts.judgeModel && opts.judge !== 'contains' ? { model: opts.judgeModel, usage: judgeUsage } : 'contains',
    passRate: passRate(results),
    results,
  };
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}
