import { describe, expect, it } from 'vitest';
import { offerUndo, undoTag } from '../../../../src/actions/offer-undo.js';
import type { AskDeps } from '../../../../src/actions/ask-question.js';
import { initialState } from '../../../../src/records/loop-state.js';
import type { RemediationVerification } from '../../../../src/records/remediation.js';
import type { RemediationApplied } from '../../../../src/remediation/applied-event.js';
import { askJobId } from '../../../../src/redis/job-data.js';
import { approvalRecords } from '../../../helpers/approval-records.js';
import { ticketIssue } from '../../../helpers/ticket-issue.js';
import { beginRun, claimIssue, runsOf } from '../../../helpers/store-paths.js';

// A rollout change that did not help: its undo goes to the investigation as a follow-up run naming the exact call,
// which the model proposes and a person approves. Offered once, and only when there is an undo.

const r = approvalRecords();
const deps = (): AskDeps => ({ store: r.store, runs: r.runs, continuations: r.continuations });

async function completed() {
  const { id } = await claimIssue(r.store, ticketIssue('a'));
  await beginRun(r.store, id, 1);
  await r.store.saveCheckpoint(id, initialState([{ role: 'user', content: 'investigate' }]));
  await runsOf(r.store).complete(id, { rca: 'web leaks memory', toolCalls: [], usage: initialState([]).usage });
  return (await r.store.get(id))!;
}

const restart = (investigationId: string): RemediationApplied => ({
  investigationId,
  toolCallId: 'call-1',
  tool: 'kubectl_rollout_restart',
  params: { kind: 'deployment', namespace: 'shop', name: 'web' },
  workload: { kind: 'deployment', namespace: 'shop', name: 'web' },
  approvedBy: 'alice',
  appliedAt: '2026-12-07T10:00:00.000Z',
  result: { applied: true },
});
const failed: RemediationVerification = {
  status: 'not_mitigated',
  checkedAt: '2026-12-07T10:10:00.000Z',
  evidence: 'the alert was still firing 10 min after the restart of deployment/web approved by alice',
};

describe('offerUndo', () => {
  it('queues one follow-up naming the undo call, and none when asked again', async () => {
    const inv = await completed();
    expect(await offerUndo(deps(), inv, restart(inv.id), failed)).toEqual({
      status: 202,
      body: { status: 'queued', entry: 0 },
    });
    expect((await r.work.getJob(askJobId(inv.id, 0)))!.data).toEqual({ investigationId: inv.id, phase: 'ask' });
    const after = (await r.store.get(inv.id))!;
    const question = after.conversation[0]!.question;
    expect(question.startsWith(undoTag('call-1'))).toBe(true);
    expect(question).toContain('kubectl_rollout_undo {"namespace":"shop","name":"web"}');
    expect(question).toContain(failed.evidence);
    expect(await offerUndo(deps(), after, restart(inv.id), failed)).toBeNull();
    expect(await r.work.getJob(askJobId(inv.id, 1))).toBeUndefined();
  });

  it('offers nothing when it helped, or when there is no undo for the action', async () => {
    const inv = await completed();
    expect(await offerUndo(deps(), inv, restart(inv.id), { ...failed, status: 'mitigated' })).toBeNull();
    const del = {
      ...restart(inv.id),
      tool: 'kubectl_delete_pod',
      workload: { kind: 'pod', namespace: 'shop', name: 'p' },
    };
    expect(await offerUndo(deps(), inv, del, failed)).toBeNull();
    expect((await r.store.get(inv.id))!.conversation).toEqual([]);
  });
});
