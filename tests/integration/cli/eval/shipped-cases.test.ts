import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCases } from '../../../../cli/eval/eval-case.js';
import type { CaseResult } from '../../../../cli/eval/run-case.js';
import { loadAliases } from '../../../../cli/eval/tool-aliases.js';
import { investigatingModel } from '../../../helpers/eval-model.js';
import { runCli } from '../../../helpers/run-cli.js';
import { startScriptedLlm, type ScriptedLlm } from '../../../helpers/scripted-llm.js';

const EVALS = new URL('../../../../evals', import.meta.url).pathname;
const cases = findCases([EVALS]);
let llm: ScriptedLlm;

beforeAll(async () => {
  llm = await startScriptedLlm(investigatingModel(cases, loadAliases([])));
});
afterAll(async () => {
  await llm?.close();
});

describe('the shipped cases (evals/)', () => {
  it('are at least 25, each tagged easy, medium or hard, each with a title of its own', () => {
    expect(cases.length).toBeGreaterThanOrEqual(25);
    for (const c of cases) expect(c.tags.filter((t) => ['easy', 'medium', 'hard'].includes(t))).toHaveLength(1);
    expect(new Set(cases.map((c) => c.issue.title)).size).toBe(cases.length);
  });

  it('`lestrade eval evals/ --judge contains` passes every case with a model that calls the mocks and answers from them', async () => {
    const json = join(mkdtempSync(join(tmpdir(), 'lestrade-eval-')), 'report.json');
    const r = await runCli(
      ['eval', EVALS, '--judge', 'contains', '--parallel', '8', '--json', json, '--min-pass', '100'],
      {
        OPENAI_BASE_URL: llm.baseUrl,
        OPENAI_API_KEY: 'test',
        LESTRADE_MODEL: 'scripted',
      },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    for (const c of cases) expect(r.stdout).toMatch(new RegExp(`^${c.id.replace(/[[\]]/g, '\\$&')}\\s+pass\\s`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^all\\s+${cases.length}/${cases.length}\\s+100%`, 'm'));
    const report = JSON.parse(readFileSync(json, 'utf8')) as { results: CaseResult[] };
    for (const res of report.results) {
      const c = cases.find((k) => k.id === res.id)!;
      // Every mock answered a call, no call went unanswered, and the findings cite the outputs.
      expect({ id: res.id, calls: res.toolCalls, unmocked: res.unmockedCalls }).toEqual({
        id: c.id,
        calls: c.mocks.length,
        unmocked: [],
      });
      expect(res.sections).toHaveLength(4);
      expect(res.evidence.cited, res.id).toBeGreaterThan(0);
      expect(res.flags, res.id).toEqual([]);
    }
  }, 120_000);
});
