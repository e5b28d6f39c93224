import { describe, expect, it } from 'vitest';
import { CheckState } from '../../../../src/checks/check-state.js';
import type { CheckOutcome, CheckStatus } from '../../../../src/records/check-result.js';
import { redisClient } from '../../../helpers/redis-client.js';

const r = redisClient();

const outcome = (status: CheckStatus, name = 'checkout'): CheckOutcome => ({
  name,
  status,
  summary: `it is ${status}`,
  evidence: ['p99 420 ms'],
});

/** Settles runs run-1, run-2, ... with these statuses; what each decided. */
async function runs(
  statuses: CheckStatus[],
  policy: { notify: 'on_change' | 'on_failure' | 'always'; minConsecutive: number },
) {
  const state = new CheckState(r.client);
  const out: Array<{ notify: boolean; previous: CheckStatus | undefined }> = [];
  for (const [i, s] of statuses.entries())
    out.push(await state.settle(`run-${i + 1}`, outcome(s), policy, `2026-12-07T10:${10 + i}:00Z`));
  return out;
}

describe('CheckState.settle (notify policy, flapping, idempotency)', () => {
  it('on_change: a first pass is silent; a fail counts after two in a row; a steady fail is silent; the recovery is heard', async () => {
    const got = await runs(['pass', 'fail', 'fail', 'fail', 'pass', 'pass'], {
      notify: 'on_change',
      minConsecutive: 2,
    });
    expect(got.map((g) => g.notify)).toEqual([false, false, true, false, true, false]);
    // The last stable status before each run: none before the first; the first pass is the baseline.
    expect(got.map((g) => g.previous)).toEqual([undefined, 'pass', 'pass', 'fail', 'fail', 'pass']);
  });

  it('on_change: a single fail between passes (a flap) notifies nobody', async () => {
    const got = await runs(['pass', 'fail', 'pass', 'fail', 'pass'], { notify: 'on_change', minConsecutive: 2 });
    expect(got.every((g) => !g.notify)).toBe(true);
  });

  it('on_change with minConsecutive 1: the first fail is heard; warn counts at once whatever minConsecutive', async () => {
    expect((await runs(['pass', 'fail'], { notify: 'on_change', minConsecutive: 1 })).map((g) => g.notify)).toEqual([
      false,
      true,
    ]);
    await r.client.flushall();
    expect((await runs(['pass', 'warn'], { notify: 'on_change', minConsecutive: 5 })).map((g) => g.notify)).toEqual([
      false,
      true,
    ]);
  });

  it('on_failure: every failing run once stable, never a pass; always: every run (fails once stable)', async () => {
    const failing = await runs(['fail', 'fail', 'fail', 'pass', 'error', 'error'], {
      notify: 'on_failure',
      minConsecutive: 2,
    });
    expect(failing.map((g) => g.notify)).toEqual([false, true, true, false, false, true]);
    await r.client.flushall();
    const always = await runs(['pass', 'pass', 'fail', 'fail'], { notify: 'always', minConsecutive: 2 });
    expect(always.map((g) => g.notify)).toEqual([true, true, false, true]);
  });

  it('settling the same run again decides nothing anew: same answer, counted once, one history entry', async () => {
    const state = new CheckState(r.client);
    const policy = { notify: 'on_change' as const, minConsecutive: 1 };
    await state.settle('run-1', outcome('pass'), policy, '2026-12-07T10:00:00Z');
    const first = await state.settle('run-2', outcome('fail'), policy, '2026-12-07T10:15:00Z');
    const again = await state.settle('run-2', outcome('fail'), policy, '2026-12-07T10:15:00Z');
    expect(first).toEqual({ notify: true, previous: 'pass' });
    expect(again).toEqual(first);
    const view = await state.view('checkout');
    expect(view).toMatchObject({ lastStatus: 'fail', consecutive: 1, notified: 'fail', lastInvestigationId: 'run-2' });
    const history = await state.history('checkout');
    expect(history.map((h) => [h.investigationId, h.status, h.notified])).toEqual([
      ['run-2', 'fail', true],
      ['run-1', 'pass', false],
    ]);
  });

  it('keeps each check apart, and pauses one without the other', async () => {
    const state = new CheckState(r.client);
    const policy = { notify: 'on_change' as const, minConsecutive: 1 };
    await state.settle('a-1', outcome('fail', 'checkout'), policy, '2026-12-07T10:00:00Z');
    expect((await state.settle('b-1', outcome('fail', 'search'), policy, '2026-12-07T10:00:00Z')).notify).toBe(true);
    await state.setPaused('search', true);
    expect(await state.isPaused('search')).toBe(true);
    expect(await state.isPaused('checkout')).toBe(false);
    await state.setPaused('search', false);
    expect((await state.view('search')).paused).toBe(false);
  });
});
