import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { resolveAwaiting } from '../../../../src/loop/approvals.js';
import { proposeRemediation } from '../../../../src/loop/remediation-calls.js';
import type { AppliedCallLog, AppliedCallState } from '../../../../src/records/applied-call.js';
import type {
  RemediationProposal,
  RemediationRails,
  RemediationRan,
  RemediationRules,
} from '../../../../src/records/remediation.js';
import type { AwaitingTurn } from '../../../../src/records/loop-state.js';
import { callKey } from '../../../../src/tools/call-key.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { Tool, ToolResult } from '../../../../src/tools/types.js';

// The loop's side of the remediation rails, on a real ToolExecutor: which calls are remediations (Tool.remediation),
// what is proposed, refused, dropped and recorded, with which ids and approver.

const rules: RemediationRules = {
  workload: (p) => ({ kind: 'deployment', namespace: 'shop', name: String(p.name) }),
  maxActionsPerDay: 20,
  maxActionsPerDayKey: 'x.maxActionsPerDay',
  inFlightSeconds: 60,
  holdAfterApplySeconds: 0,
};
const scale: Tool = {
  name: 'scale',
  description: 'scales',
  sideEffects: true,
  idempotent: true,
  remediation: rules,
  params: z.object({ name: z.string() }),
  run: async (p, ctx) =>
    p.name === 'done'
      ? { status: 'success', data: 'found made', alreadyApplied: true }
      : { status: 'success', data: `scaled ${String(p.name)} as ${String(ctx.approvalId)}` },
};
const restart: Tool = { ...scale, name: 'restart', remediation: undefined };
const executor = new ToolExecutor({ tools: [scale, restart] });

function fakeRails(refusal: string | null = null) {
  const seen = { proposed: [] as RemediationProposal[], refused: [] as string[], dropped: [] as string[] };
  const ran: RemediationRan[] = [];
  const rails: RemediationRails = {
    propose: async (p) => {
      seen.proposed.push(p);
      return refusal;
    },
    refused: (p, reason) => seen.refused.push(`${p.toolCallId}: ${reason}`),
    drop: async (p) => {
      seen.dropped.push(p.toolCallId);
    },
    ran: async (p) => {
      ran.push(p);
    },
  };
  return { rails, seen, ran };
}

const asking = (tool: string, name: string): ToolResult => ({
  tool,
  status: 'approval_required',
  error: 'asks',
  params: { name },
  elapsedMs: 0,
});

describe('proposeRemediation', () => {
  it('proposes a remediation that would wait for a human, with its rules and parsed params', async () => {
    const { rails, seen } = fakeRails();
    const result = asking('scale', 'web');
    expect(await proposeRemediation('c1', result, { executor, remediations: rails })).toBe(result);
    expect(seen.proposed).toEqual([{ toolCallId: 'c1', tool: 'scale', rules, params: { name: 'web' } }]);
  });

  it('answers a refused proposal "refused: <reason>" instead of asking anyone', async () => {
    const { rails } = fakeRails('deployment shop/web already has a remediation in flight');
    expect(await proposeRemediation('c1', asking('scale', 'web'), { executor, remediations: rails })).toEqual({
      tool: 'scale',
      status: 'error',
      error: 'refused: deployment shop/web already has a remediation in flight',
      params: { name: 'web' },
      elapsedMs: 0,
    });
  });

  it("counts the tool's own refusal, and leaves other tools, other results and no rails alone", async () => {
    const { rails, seen } = fakeRails('no');
    const own: ToolResult = { tool: 'scale', status: 'error', error: 'refused: the label', params: {}, elapsedMs: 0 };
    expect(await proposeRemediation('c1', own, { executor, remediations: rails })).toBe(own);
    expect(seen.refused).toEqual(['c1: the label']);
    const failed: ToolResult = { ...own, error: 'kubectl failed' };
    expect(await proposeRemediation('c2', failed, { executor, remediations: rails })).toBe(failed);
    const other = asking('restart', 'web');
    expect(await proposeRemediation('c3', other, { executor, remediations: rails })).toBe(other);
    expect(await proposeRemediation('c4', asking('scale', 'x'), { executor })).toEqual(asking('scale', 'x'));
    expect(seen.proposed).toEqual([]);
    expect(seen.refused).toEqual(['c1: the label']);
  });
});

class MemoryLog implements AppliedCallLog {
  readonly entries = new Map<string, AppliedCallState>();
  async begin(callId: string): Promise<AppliedCallState> {
    const before = this.entries.get(callId);
    if (before) return before;
    this.entries.set(callId, { state: 'started', at: '2026-12-07T10:00:00Z' });
    return { state: 'new' };
  }
  async finish(callId: string, result: ToolResult): Promise<void> {
    this.entries.set(callId, { state: 'done', result });
  }
  idOf(callId: string): string {
    return `run-1/${callId}`;
  }
}

const turnOf = (...names: string[]): AwaitingTurn => {
  const calls = names.map((n, i) => ({ id: `c${i}`, name: 'scale', arguments: JSON.stringify({ name: n }) }));
  return {
    seq: 2,
    calls,
    results: calls.map(() => null),
    approvals: calls.map((c) => ({
      toolCallId: c.id,
      tool: 'scale',
      params: JSON.parse(c.arguments) as Record<string, unknown>,
      reason: 'asks',
      callKey: callKey('scale', c.arguments),
    })),
  };
};
const ALICE = { via: 'dashboard' as const, user: 'alice' };

describe('resolveAwaiting with remediation rails', () => {
  it('records an approved call that ran with its applied id and approver, and drops a denied and an expired one', async () => {
    const { rails, seen, ran } = fakeRails();
    const decisions = new Map([
      ['c0', { approved: true, decidedBy: ALICE }],
      ['c1', { approved: false, decidedBy: ALICE }],
    ]);
    const applied = new MemoryLog();
    await resolveAwaiting(turnOf('web', 'api', 'db'), { decisions, expired: true }, executor, {
      applied,
      remediations: rails,
    });
    expect(seen.dropped).toEqual(['c1', 'c2']);
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatchObject({
      toolCallId: 'c0',
      tool: 'scale',
      params: { name: 'web' },
      appliedId: 'run-1/2:c0',
      approvedBy: ALICE,
      result: { status: 'success', data: 'scaled web as run-1/2:c0' },
    });
  });

  it('records a result found logged (a resumed run), and an already-applied one as such', async () => {
    const { rails, ran } = fakeRails();
    const applied = new MemoryLog();
    const logged: ToolResult = { tool: 'scale', status: 'success', data: 'logged', params: {}, elapsedMs: 3 };
    applied.entries.set('2:c0', { state: 'done', result: logged });
    const decisions = new Map([
      ['c0', { approved: true }],
      ['c1', { approved: true }],
    ]);
    await resolveAwaiting(turnOf('web', 'done'), { decisions, expired: false }, executor, {
      applied,
      remediations: rails,
    });
    expect(ran.map((r) => [r.toolCallId, r.result.data, r.result.alreadyApplied, 'approvedBy' in r])).toEqual([
      ['c0', 'logged', undefined, false],
      ['c1', 'found made', true, false],
    ]);
  });

  it('records nothing without the at-most-once log (the CLI), nor for a cancelled run', async () => {
    const { rails, ran } = fakeRails();
    const decisions = new Map([['c0', { approved: true }]]);
    await resolveAwaiting(turnOf('web'), { decisions, expired: false }, executor, { remediations: rails });
    const signal = AbortSignal.abort();
    await resolveAwaiting(turnOf('web'), { decisions, expired: false }, executor, {
      applied: new MemoryLog(),
      remediations: rails,
      signal,
    });
    expect(ran).toEqual([]);
  });
});
