import { describe, expect, it } from 'vitest';
import {
  REPORT_CHECK_RESULT,
  runReportCheckResult,
  verdictPushBack,
  verdictToolSpec,
} from '../../../../src/loop/check-verdict-tool.js';
import { initialState } from '../../../../src/records/loop-state.js';

// report_check_result: a health check's verdict, kept in the loop's state (docs/checks.md).

const checkState = () => {
  const state = initialState([{ role: 'user', content: 'is checkout healthy?' }]);
  state.check = { verdict: null, pushedBack: false };
  return state;
};

describe('report_check_result', () => {
  it('is offered with its arguments as the model may send them (evidence optional)', () => {
    const spec = verdictToolSpec();
    if (spec.type !== 'function') throw new Error('a function tool');
    const fn = spec.function;
    expect(fn.name).toBe(REPORT_CHECK_RESULT);
    expect(fn.parameters).not.toHaveProperty('$schema');
    expect(fn.parameters).toMatchObject({ required: ['status', 'summary'] });
  });

  it('keeps the verdict, with no evidence as an empty list', () => {
    const state = checkState();
    const r = runReportCheckResult(state, '{"status": "fail", "summary": " p99 is 900 ms "}');
    expect(r).toMatchObject({ tool: REPORT_CHECK_RESULT, status: 'success', data: expect.stringContaining('fail') });
    expect(state.check).toEqual({
      pushedBack: false,
      verdict: { status: 'fail', summary: 'p99 is 900 ms', evidence: [] },
    });
    expect(verdictPushBack(state)).toBeNull();
  });

  it('changes nothing on bad arguments and says why', () => {
    const state = checkState();
    expect(runReportCheckResult(state, '{"status": "ok"')).toMatchObject({
      status: 'error',
      error: 'arguments are not valid JSON',
    });
    const r = runReportCheckResult(state, '{"status": "healthy", "summary": "x"}');
    expect(r).toMatchObject({ status: 'error', params: { status: 'healthy', summary: 'x' } });
    expect(r.error).toMatch(/^invalid arguments: .*status/);
    expect(state.check).toEqual({ verdict: null, pushedBack: false });
  });

  it('sends an answer without a verdict back once', () => {
    const state = checkState();
    expect(verdictPushBack(state)).toContain(REPORT_CHECK_RESULT);
    expect(verdictPushBack(state)).toBeNull();
  });
});
