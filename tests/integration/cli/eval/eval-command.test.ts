import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findCases } from '../../../../cli/eval/eval-case.js';
import { evalCommand, type EvalOptions } from '../../../../cli/eval/eval-command.js';
import type { CaseResult } from '../../../../cli/eval/run-case.js';
import { loadAliases } from '../../../../cli/eval/tool-aliases.js';
import { loadConfig } from '../../../../src/config/load-config.js';
import { destinations } from '../../../../destinations/index.js';
import { sources } from '../../../../sources/index.js';
import { answerFrom, caseOf, investigatingModel } from '../../../helpers/eval-model.js';
import { startScriptedLlm, type Script, type ScriptedLlm } from '../../../helpers/scripted-llm.js';

const EVALS = new URL('../../../../evals', import.meta.url).pathname;
const ONE = join(EVALS, '01_crashloop_bad_config');
const cases = findCases([EVALS]);
const aliases = loadAliases([]);
let llm: ScriptedLlm | undefined;

afterEach(async () => {
  await llm?.close();
  llm = undefined;
});

async function run(script: Script, dirs: string[], opts: EvalOptions = {}) {
  llm = await startScriptedLlm(script);
  const config = loadConfig(
    { OPENAI_BASE_URL: llm.baseUrl, OPENAI_API_KEY: 'test', LESTRADE_MODEL: 'scripted' },
    undefined,
    sources,
    destinations,
  );
  const json = join(mkdtempSync(join(tmpdir(), 'lestrade-eval-')), 'report.json');
  let out = '';
  const code = await evalCommand(dirs, { judge: 'contains', ...opts, json }, config, {
    out: (s) => {
      out += s;
    },
    env: {},
  });
  const report = JSON.parse(readFileSync(json, 'utf8')) as { results: CaseResult[]; judge: unknown };
  return { code, out, report, results: report.results };
}

describe('lestrade eval: scoring', () => {
  it('fails a model that answers without looking: facts missing, no tool called', async () => {
    const { code, out, results } = await run(investigatingModel(cases, aliases, { look: false }), [ONE], {
      minPass: 100,
    });
    expect(code).toBe(1);
    const [r] = results;
    expect(r).toMatchObject({ passed: false, score: 0, toolCalls: 0 });
    expect(r!.reasons).toEqual(['missing fact: config.yaml', 'missing fact: line 14']);
    expect(r!.flags).toContain('answered without calling a tool');
    expect(out).toMatch(/^01_crashloop_bad_config\s+FAIL\s+0\.00/m);
    expect(out).toContain('pass rate 0.0% is below --min-pass 100%');
  });

  it('flags a call no mock answers, and hands the model an error naming the missing mock', async () => {
    const script: Script = (req, i) => {
      if (i === 0) return { toolCalls: [{ name: 'kubectl_get', arguments: { kind: 'secrets', namespace: 'shop' } }] };
      return { content: answerFrom(req, caseOf(req, cases).expected) };
    };
    const { results } = await run(script, [ONE]);
    const [r] = results;
    expect(r!.unmockedCalls).toEqual([
      { tool: 'kubectl_get', params: { kind: 'secrets', namespace: 'shop' }, mock: null },
    ]);
    expect(r!.flags).toContain('1 unmocked call');
    // The prompt is the service's: our toolsets' instructions, and those the case leaves off listed as such.
    const system = llm!.requests[0]!.messages[0]!.content!;
    expect(system).toMatch(/\n- kubernetes: [^\n]*\n {4}Take the namespace and workload from the alert's labels/);
    expect(system).toContain('\n- bash — switched off in configuration\n');
    const toolMessage = llm!.requests[1]!.messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(toolMessage.content!)).toMatchObject({
      status: 'error',
      error: expect.stringContaining('no recorded output for kubectl_get {"kind":"secrets","namespace":"shop"}'),
    });
  });

  it('offers tools it lacks with a schema inferred from the mocks, and Lestrade tools for HolmesGPT names', async () => {
    const folder = join(EVALS, '26_holmes_tool_names');
    const { results } = await run(investigatingModel(cases, aliases), [folder, join(EVALS, '06_certificate_expiry')]);
    expect(results.map((r) => [r.id, r.passed, r.unmockedCalls.length])).toEqual([
      ['06_certificate_expiry', true, 0],
      ['26_holmes_tool_names', true, 0],
    ]);
    const loki = llm!.requests[0]!.tools!.concat(llm!.requests.flatMap((q) => q.tools ?? [])).find(
      (t) => t.function.name === 'grafana_loki_query',
    );
    expect(loki?.function.parameters).toMatchObject({ properties: { query: { type: 'string' } }, required: ['query'] });
    // fetch_pod_logs and kubectl_find_resource are ours (kubectl_logs, kubectl_get): not offered under their names.
    const names = llm!.requests.flatMap((q) => (q.tools ?? []).map((t) => t.function.name));
    expect(names).not.toContain('fetch_pod_logs');
    expect(names).toContain('kubectl_logs');
  });

  it('--filter picks cases by tag or name, --repeat runs each case n times with the spread of pass rates', async () => {
    const { results, out } = await run(investigatingModel(cases, aliases), [EVALS], { filter: 'loki', repeat: 2 });
    const loki = cases.filter((c) => c.tags.includes('loki')).map((c) => c.id);
    expect(loki.length).toBeGreaterThan(2);
    expect(results.map((r) => `${r.id}#${r.attempt}`)).toEqual(loki.flatMap((id) => [`${id}#1`, `${id}#2`]));
    expect(out).toMatch(/^loki\s+\d+\/\d+\s+100%\s+100%–100%/m);
  });
});

describe('lestrade eval: the LLM judge', () => {
  it('asks the judge one fact at a time, keeps its reasoning, and fails the case on one absent fact', async () => {
    const judged: string[] = [];
    const investigate = investigatingModel(cases, aliases);
    const script: Script = (req, i, meta) => {
      const prompt = String(req.messages[0]?.content ?? '');
      if (req.model !== 'judge') return investigate(req, i, meta);
      const fact = /Expected fact: (.*)/.exec(prompt)![1]!;
      judged.push(fact);
      expect(prompt).toMatch(/<answer-[0-9a-f]{12}>\n## Alert explanation/);
      const present = fact !== 'line 14';
      return { content: `Sure: {"reasoning": "judged ${fact}", "present": ${present}}` };
    };
    const { results, report } = await run(script, [ONE], { judge: undefined, judgeModel: 'judge' });
    expect(judged.sort()).toEqual(['config.yaml', 'line 14']);
    expect(report.judge).toEqual({ model: 'judge', usage: { calls: 2, promptTokens: 200, completionTokens: 20 } });
    expect(results[0]!.facts).toEqual([
      { fact: 'config.yaml', present: true, reasoning: 'judged config.yaml' },
      { fact: 'line 14', present: false, reasoning: 'judged line 14' },
    ]);
    expect(results[0]!.passed).toBe(false);
  });

  it('counts a judge reply that is not the JSON asked for as absent, quoting it', async () => {
    const investigate = investigatingModel(cases, aliases);
    const script: Script = (req, i, meta) =>
      req.model === 'judge' ? { content: 'yes, it is there' } : investigate(req, i, meta);
    const { results } = await run(script, [ONE], { judge: undefined, judgeModel: 'judge' });
    expect(results[0]!.passed).toBe(false);
    expect(results[0]!.facts[0]!.reasoning).toContain('yes, it is there');
  });
});

describe('lestrade eval: case folders', () => {
  it('reads a HolmesGPT mock file of the older format (no structured line) and a skipped case', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-eval-case-'));
    cpSync(ONE, join(dir, 'a_case'), { recursive: true });
    const file = join(dir, 'a_case', 'kubectl_logs_cart-api_previous.txt');
    const lines = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, [lines[0], 'stdout:', ...lines.slice(2), 'stderr:', ''].join('\n'));
    cpSync(ONE, join(dir, 'b_skipped'), { recursive: true });
    writeFileSync(join(dir, 'b_skipped', 'test_case.yaml'), 'expected_output: [x]\nskip: true\nskip_reason: flaky\n', {
      flag: 'w',
    });
    const script: Script = (req) =>
      req.messages.some((m) => m.role === 'tool')
        ? { content: answerFrom(req, ['config.yaml', 'line 14']) }
        : { toolCalls: [{ name: 'kubectl_logs', arguments: { pod: 'cart-api-7d9f8b6c54-x2kqp', namespace: 'shop' } }] };
    const { results, out } = await run(script, [dir]);
    expect(out).toContain('skipped b_skipped: flaky');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ id: 'a_case', passed: true, unmockedCalls: [] });
    const tool = JSON.parse(llm!.requests[1]!.messages.find((m) => m.role === 'tool')!.content!) as { data: string };
    expect(tool.data).toMatch(/^stdout:\n.*line 14/s);
  });
});
