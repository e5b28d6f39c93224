import { describe, expect, it } from 'vitest';
import type { BudgetDecision, BudgetGuard, BudgetSubject } from '../../../../src/budget/budget-guard.js';
import type { UsageLedger } from '../../../../src/budget/usage-ledger.js';
import { DEFAULT_PRIORITIES, IntakePolicy } from '../../../../src/intake-policy/intake-policy.js';
import { workerHooks } from '../../../../src/queue/admission.js';
import type { Investigation } from '../../../../src/store/investigation.js';

const NOW = Date.parse('2026-11-30T10:00:00.000Z');
const policy = (skipResolvedWhileQueued: boolean) =>
  new IntakePolicy({ priorities: DEFAULT_PRIORITIES, prioritiesBySource: {}, skip: [], skipResolvedWhileQueued });

function budgets(enabled: boolean, decision: BudgetDecision = { ok: true }) {
  const asked: BudgetSubject[] = [];
  const guard = {
    enabled,
    tryStart: async (s: BudgetSubject) => {
      asked.push(s);
      return decision;
    },
  } as unknown as BudgetGuard;
  return { guard, asked };
}

function inv(over: Partial<Investigation> = {}): Investigation {
  return {
    id: 'i1',
    source: 'alertmanager',
    attempts: 0,
    issueStatus: 'open',
    createdAt: new Date(NOW - 60_000).toISOString(),
    coalescing: null,
    followUpOf: null,
    issue: { severity: 'critical', labels: { alertname: 'DiskFull' } },
    ...over,
  } as unknown as Investigation;
}

const hooks = (skipResolved = false, b = budgets(false), recheckMs = 30_000) =>
  workerHooks({ policy: policy(skipResolved), budgets: b.guard, ledger: {} as UsageLedger, recheckMs, now: () => NOW });

describe('admission', () => {
  it('runs an investigation when nothing holds it back', async () => {
    expect(await hooks().admit(inv())).toEqual({ kind: 'run' });
  });

  it('skips one whose issue resolved while it was queued, if so configured, and only before its first attempt', async () => {
    expect(await hooks(true).admit(inv({ issueStatus: 'resolved' }))).toEqual({
      kind: 'skip',
      reason: 'its issue resolved before the investigation started',
    });
    expect(await hooks(false).admit(inv({ issueStatus: 'resolved' }))).toEqual({ kind: 'run' });
    expect(await hooks(true).admit(inv({ issueStatus: 'resolved', attempts: 1 }))).toEqual({ kind: 'run' });
    expect(await hooks(true).admit(inv({ issueStatus: 'open' }))).toEqual({ kind: 'run' });
  });

  it("holds a group's follow-up until the group has been quiet, or has waited its longest", async () => {
    const quiet = { lastJoinedAt: NOW - 10_000, quietMs: 30_000, maxWaitMs: 600_000 };
    expect(await hooks().admit(inv({ followUpOf: 'i0', coalescing: quiet }))).toEqual({
      kind: 'wait',
      reason: 'group follow-up: waits until its group has been quiet for 30 s',
      until: new Date(NOW + 20_000).toISOString(),
      delayMs: 20_000,
    });
    // Created 60 s ago with a longest wait of 45 s: waited enough, whatever the quiet time says.
    expect(await hooks().admit(inv({ followUpOf: 'i0', coalescing: { ...quiet, maxWaitMs: 45_000 } }))).toEqual({
      kind: 'run',
    });
    // A longest wait ending in 5 s comes before the quiet time.
    expect(await hooks().admit(inv({ followUpOf: 'i0', coalescing: { ...quiet, maxWaitMs: 65_000 } }))).toMatchObject({
      kind: 'wait',
      delayMs: 5_000,
    });
    expect(
      await hooks().admit(inv({ followUpOf: 'i0', coalescing: { ...quiet, lastJoinedAt: NOW - 30_000 } })),
    ).toEqual({ kind: 'run' });
    // Not a follow-up, or already attempted: no quiet time.
    expect(await hooks().admit(inv({ coalescing: quiet }))).toEqual({ kind: 'run' });
    expect(await hooks().admit(inv({ followUpOf: 'i0', coalescing: quiet, attempts: 1 }))).toEqual({ kind: 'run' });
  });

  it('sleeps at most the recheck time, and at least a millisecond', async () => {
    const quiet = { lastJoinedAt: NOW - 10_000, quietMs: 600_000, maxWaitMs: 3_600_000 };
    expect(
      await hooks(false, budgets(false), 30_000).admit(inv({ followUpOf: 'i0', coalescing: quiet })),
    ).toMatchObject({ kind: 'wait', delayMs: 30_000 });
    const over = budgets(true, { ok: false, reason: 'budget', retryAt: NOW - 5 });
    expect(await hooks(false, over).admit(inv())).toEqual({
      kind: 'wait',
      reason: 'budget',
      until: new Date(NOW - 5).toISOString(),
      delayMs: 1,
    });
  });

  it('asks the budgets about the investigation when they are on, and waits as they say', async () => {
    const open = budgets(true);
    expect(await hooks(false, open).admit(inv())).toEqual({ kind: 'run' });
    expect(open.asked).toEqual([{ id: 'i1', source: 'alertmanager', severity: 'critical', alertname: 'DiskFull' }]);
    const over = budgets(true, { ok: false, reason: 'budget: 5 investigations per hour', retryAt: NOW + 7_000 });
    expect(await hooks(false, over).admit(inv())).toEqual({
      kind: 'wait',
      reason: 'budget: 5 investigations per hour',
      until: new Date(NOW + 7_000).toISOString(),
      delayMs: 7_000,
    });
    const off = budgets(false, { ok: false, reason: 'never asked', retryAt: NOW });
    expect(await hooks(false, off).admit(inv())).toEqual({ kind: 'run' });
    expect(off.asked).toEqual([]);
  });

  it('records what a finished investigation, or one follow-up question, used in the ledger', async () => {
    const recorded: unknown[] = [];
    const ledger = {
      record: async (id: string, usage: unknown, entry?: number) => {
        recorded.push([id, usage, entry]);
        return true;
      },
    } as unknown as UsageLedger;
    const h = workerHooks({ policy: policy(false), budgets: budgets(false).guard, ledger, recheckMs: 1 });
    await h.settled('i1', { promptTokens: 3, completionTokens: 1, llmCalls: 1 });
    await h.settled('i1', { promptTokens: 5, completionTokens: 2, llmCalls: 2 }, 0);
    expect(recorded).toEqual([
      ['i1', { promptTokens: 3, completionTokens: 1, llmCalls: 1 }, undefined],
      ['i1', { promptTokens: 5, completionTokens: 2, llmCalls: 2 }, 0],
    ]);
  });
});
