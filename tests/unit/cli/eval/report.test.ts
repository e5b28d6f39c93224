import { describe, expect, it } from 'vitest';
import { formatReport, passRate, progressLine } from '../../../../cli/eval/report.js';
import type { CaseResult } from '../../../../cli/eval/run-case.js';

function result(id: string, attempt: number, passed: boolean, tags = ['easy']): CaseResult {
  return {
    id,
    tags,
    model: 'm1',
    attempt,
    passed,
    score: passed ? 1 : 0.5,
    facts: [],
    reasons: passed ? [] : ['missing fact: x'],
    flags: passed ? [] : ['1 unmocked call'],
    sections: [],
    evidence: { checked: 0, cited: 0, examples: [] },
    llmCalls: 2,
    toolCalls: 3,
    unmockedCalls: [],
    promptTokens: 1200,
    completionTokens: 80,
    cost: 0.0123,
    seconds: 1.25,
    answer: '',
  };
}

describe('eval report', () => {
  it('prints a row per run, the failures, and totals per tag and model with the spread over rounds', () => {
    const rs = [
      result('a', 1, true),
      result('a', 2, false),
      result('b', 1, true, ['hard']),
      result('b', 2, true, ['hard']),
    ];
    const text = formatReport(rs, 2);
    expect(text).toMatch(/^a #2\s+FAIL\s+0\.50\s+2\s+3\s+1200\/80\s+0\.0123\s+1\.3\s+1 unmocked call$/m);
    expect(text).toContain('  a #2: missing fact: x');
    expect(text).toMatch(/^easy\s+1\/2\s+50%\s+0%–100%$/m);
    expect(text).toMatch(/^hard\s+2\/2\s+100%\s+100%–100%$/m);
    expect(text).toMatch(/^m1\s+3\/4\s+75%\s+50%–100%$/m);
    expect(passRate(rs)).toBe(0.75);
    expect(passRate([])).toBe(1);
  });

  it('draws a progress bar that fills as cases finish', () => {
    expect(progressLine(0, 4, 0)).toBe(`\r[${'.'.repeat(30)}] 0/4 cases, 0 failed`);
    expect(progressLine(2, 4, 1)).toBe(`\r[${'#'.repeat(15)}${'.'.repeat(15)}] 2/4 cases, 1 failed`);
  });
});
