import { describe, expect, it } from 'vitest';
import type { RemediationApplied } from '../../../../src/remediation/applied-event.js';
import { actionPhrase, duration, judge, type Observation } from '../../../../src/remediation/judge.js';

const T0 = Date.parse('2026-12-07T10:00:00.000Z');
const MIN = 60_000;
const restart: RemediationApplied = {
  investigationId: 'inv-1',
  toolCallId: 'call-1',
  tool: 'kubectl_rollout_restart',
  params: { kind: 'deployment', namespace: 'shop', name: 'web' },
  workload: { kind: 'deployment', namespace: 'shop', name: 'web' },
  approvedBy: 'alice',
  appliedAt: new Date(T0).toISOString(),
  result: { applied: true },
};
const done = { state: 'done', detail: '3 of 3 replicas updated and available' } as const;
const firing = { resolved: false, live: true, what: 'alert', via: 'Alertmanager at http://am' } as const;
const open = { resolved: false, live: false, what: 'issue', via: 'its status in jira' } as const;
const at = (now: number, deadline = T0 + 10 * MIN) => ({ now, deadline });

function see(o: Partial<Observation> & { now: number }): Observation {
  return { deadline: T0 + 10 * MIN, rollout: done, issue: firing, ...o };
}

describe('judge', () => {
  it('says mitigated, with the minutes since the action and its approver, once the alert resolved and the rollout finished', () => {
    const v = judge(
      restart,
      see({
        ...at(T0 + 4 * MIN),
        issue: { resolved: true, at: T0 + 3 * MIN, what: 'alert', via: 'Alertmanager at http://am' },
      }),
    );
    expect(v).toEqual({
      status: 'mitigated',
      checkedAt: new Date(T0 + 4 * MIN).toISOString(),
      evidence:
        'the alert resolved 3 min after the restart of deployment/web approved by alice and the rollout finished ' +
        '(3 of 3 replicas updated and available) (Alertmanager at http://am)',
    });
  });

  it('counts an alert resolved the moment the action was applied as resolved after it, one a moment before not', () => {
    const resolvedAt = (t: number) =>
      judge(restart, see({ ...at(T0 + MIN), issue: { resolved: true, at: t, what: 'alert', via: 'Alertmanager' } }));
    expect(resolvedAt(T0)?.status).toBe('mitigated');
    expect(resolvedAt(T0 - 1)?.status).toBe('unknown');
  });

  it('keeps checking while the alert fires or the rollout runs, until the window ends', () => {
    expect(judge(restart, see({ now: T0 + 9 * MIN }))).toBeNull();
    const resolved = { resolved: true, at: T0 + MIN, what: 'alert', via: 'x' } as const;
    const rolling = { state: 'progressing', detail: '1 of 3 new replicas updated' } as const;
    expect(judge(restart, see({ now: T0 + 2 * MIN, issue: resolved, rollout: rolling }))).toBeNull();
  });

  it('says not mitigated when the window ends with the alert still firing', () => {
    const v = judge(restart, see({ now: T0 + 10 * MIN }));
    expect(v?.status).toBe('not_mitigated');
    expect(v?.evidence).toBe(
      'the alert was still firing 10 min after the restart of deployment/web approved by alice (Alertmanager at http://am)',
    );
  });

  it('says not mitigated at once when the rollout failed, and when it had not finished at the end', () => {
    const failed = { state: 'failed', detail: 'deployment/web exceeded its progress deadline' } as const;
    expect(judge(restart, see({ now: T0 + MIN, rollout: failed }))).toMatchObject({
      status: 'not_mitigated',
      evidence:
        'the rollout after the restart of deployment/web approved by alice failed: deployment/web exceeded its progress deadline',
    });
    const resolved = { resolved: true, at: T0 + MIN, what: 'alert', via: 'x' } as const;
    const rolling = { state: 'progressing', detail: '1 of 3 new replicas updated' } as const;
    expect(judge(restart, see({ now: T0 + 10 * MIN, issue: resolved, rollout: rolling }))).toMatchObject({
      status: 'not_mitigated',
      evidence:
        'the rollout had not finished 10 min after the restart of deployment/web approved by alice: 1 of 3 new replicas updated',
    });
  });

  it('says unknown when nothing live could tell: a ticket still open, or no probe, at the end of the window', () => {
    const v = judge(restart, see({ now: T0 + 10 * MIN, issue: open }));
    expect(v).toMatchObject({ status: 'unknown' });
    expect(v?.evidence).toContain('the issue was still open 10 min after it (its status in jira)');
    expect(v?.evidence).toContain('the rollout finished (3 of 3 replicas updated and available)');
    expect(judge(restart, see({ now: T0 + 9 * MIN, issue: open }))).toBeNull();
  });

  it('does not credit the action with a resolution that came before it was applied', () => {
    const early = { resolved: true, at: T0 - MIN, what: 'alert', via: 'x' } as const;
    expect(judge(restart, see({ now: T0 + MIN, issue: early }))).toMatchObject({
      status: 'unknown',
      evidence: 'the alert resolved before the restart of deployment/web approved by alice was applied (x)',
    });
  });

  it('needs no rollout for a pod deletion, and takes a resolution whose rollout was unreadable', () => {
    const del = { ...restart, tool: 'kubectl_delete_pod', workload: { kind: 'pod', namespace: 'shop', name: 'web-1' } };
    const resolved = { resolved: true, at: T0 + 30_000, what: 'alert', via: 'x' } as const;
    expect(judge(del, see({ now: T0 + MIN, rollout: 'n/a', issue: resolved }))?.evidence).toBe(
      'the alert resolved 30 s after the deletion of pod/web-1 approved by alice (x)',
    );
    expect(judge(restart, see({ now: T0 + MIN, rollout: 'unreadable', issue: resolved }))?.status).toBe('mitigated');
  });
});

describe('actionPhrase and duration', () => {
  it('names each action, its target and its approver', () => {
    expect(actionPhrase({ ...restart, tool: 'kubectl_scale', params: { replicas: 5 }, approvedBy: null })).toBe(
      'the scaling of deployment/web to 5',
    );
    expect(actionPhrase({ ...restart, tool: 'kubectl_rollout_undo' })).toBe(
      'the rollback of deployment/web approved by alice',
    );
    expect(actionPhrase({ ...restart, tool: 'other' })).toBe('other on deployment/web approved by alice');
    expect(actionPhrase({ ...restart, approvedBy: { via: 'slack', user: 'U024BE7LH' } })).toBe(
      'the restart of deployment/web approved by U024BE7LH on slack',
    );
    expect(actionPhrase({ ...restart, approvedBy: { via: 'dashboard', user: 'ops-token', name: 'bob' } })).toBe(
      'the restart of deployment/web approved by bob',
    );
  });

  it('says seconds under a minute, minutes from one on', () => {
    expect([duration(59_000), duration(60_000), duration(150_000), duration(-5)]).toEqual([
      '59 s',
      '1 min',
      '3 min',
      '0 s',
    ]);
  });
});
