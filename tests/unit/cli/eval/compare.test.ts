/**
 * --compare: HolmesGPT's published result file (docs/development/evaluations/latest-results.md, its "Raw
 * Results" table) read case by case, and one table of both runners' pass rates over the cases both ran.
 */
import { describe, expect, it } from 'vitest';
import { formatCompare, parseHolmesResults } from '../../../../cli/eval/compare.js';
import type { CaseResult } from '../../../../cli/eval/run-case.js';

// In the shape HolmesGPT publishes (links trimmed): a summary table first, then the per-case one.
const PUBLISHED = `# HolmesGPT LLM Evaluation Benchmark Results

| Model | Pass | Fail | Skip/Error | Total | Success Rate |
|-------|------|------|------------|-------|--------------|
| gpt-4o | 1 | 1 | 1 | 3 | 🟡 50% (1/2) |

## Raw Results

| Eval ID | [gpt-4o](https://x/?m=gpt-4o) | [sonnet](https://x/?m=sonnet) |
|---------|-------|-------|
| [**09_crashpod**](https://github.com/x/09_crashpod/test_case.yaml) [🔗](https://x) | [🟢](https://x) | [🟢](https://x) |
| [**12_job_crashing**](https://github.com/x/12) [🔗](https://x) | [🔴](https://x) | [🟢](https://x) |
| [**92_cpu_graph_conversation[0]**](https://github.com/x/92) [🔗](https://x) | [⏭️](https://x) | [⏭️](https://x) |

## Detailed Raw Results
`;

function result(id: string, passed: boolean, model = 'qwen'): CaseResult {
  return { id, passed, model, attempt: 1 } as CaseResult;
}

describe('parseHolmesResults', () => {
  it("reads the per-case table: the models from its head, each case's verdicts", () => {
    const theirs = parseHolmesResults(PUBLISHED, 'latest-results.md');
    expect(theirs.models).toEqual(['gpt-4o', 'sonnet']);
    expect([...theirs.cases]).toEqual([
      ['09_crashpod', ['pass', 'pass']],
      ['12_job_crashing', ['fail', 'pass']],
      ['92_cpu_graph_conversation[0]', ['skip', 'skip']],
    ]);
  });

  it('names the file expected when the table is not there', () => {
    expect(() => parseHolmesResults('# nothing', 'x.md')).toThrow(
      /--compare x\.md: no "\| Eval ID \| model \| \.\.\." table: .*latest-results\.md/,
    );
  });
});

describe('formatCompare', () => {
  it('sets both runners side by side over the cases both ran, skipped cases out of the rates', () => {
    const theirs = parseHolmesResults(PUBLISHED, 'latest-results.md');
    const out = formatCompare(
      [result('09_crashpod', true), result('12_job_crashing', false), result('ours_only', true)],
      theirs,
    );
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^case\s+lestrade qwen\s+holmesgpt gpt-4o\s+holmesgpt sonnet$/);
    expect(lines[2]).toMatch(/^09_crashpod\s+1\/1\s+pass\s+pass$/);
    expect(lines[3]).toMatch(/^12_job_crashing\s+0\/1\s+fail\s+pass$/);
    expect(lines[4]).toMatch(/^pass rate\s+50% \(1\/2\)\s+50% \(1\/2\)\s+100% \(2\/2\)$/);
    expect(out).not.toContain('ours_only');
  });

  it('says so when no case of the run is in the file', () => {
    const theirs = parseHolmesResults(PUBLISHED, 'latest-results.md');
    expect(formatCompare([result('ours_only', true)], theirs)).toContain(
      'no case of this run is in the compared results (3 cases there)',
    );
  });
});
