import { describe, expect, it } from 'vitest';
import { ROLLOUT_TOOLS, type RemediationApplied } from '../../../../src/remediation/applied-event.js';
import { undoCallFor } from '../../../../src/remediation/undo-call.js';

const base: RemediationApplied = {
  investigationId: 'inv-1',
  toolCallId: 'call-1',
  tool: 'kubectl_rollout_restart',
  params: {},
  workload: { kind: 'deployment', namespace: 'shop', name: 'web' },
  approvedBy: 'alice',
  appliedAt: '2026-12-07T10:00:00.000Z',
  result: { applied: true },
};

describe('undoCallFor', () => {
  it('rolls a restarted or rolled-back deployment back to the revision before', () => {
    expect(undoCallFor(base)).toEqual({ tool: 'kubectl_rollout_undo', params: { namespace: 'shop', name: 'web' } });
    expect(undoCallFor({ ...base, tool: 'kubectl_rollout_undo' })).toEqual({
      tool: 'kubectl_rollout_undo',
      params: { namespace: 'shop', name: 'web' },
    });
  });

  it('sets the replicas a scale changed back, from its answer', () => {
    const scaled = {
      ...base,
      tool: 'kubectl_scale',
      result: { applied: true, changes: ['metadata.x: 1 → 2', 'spec.replicas: 3 → 5'] },
    };
    expect(undoCallFor(scaled)).toEqual({
      tool: 'kubectl_scale',
      params: { kind: 'deployment', namespace: 'shop', name: 'web', replicas: 3 },
    });
    expect(undoCallFor({ ...scaled, result: { applied: false, note: 'already applied by this approval' } })).toBeNull();
  });

  it('reads only a whole replicas line of its answer, with numbers of any length', () => {
    const scaledWith = (...changes: unknown[]) => undoCallFor({ ...base, tool: 'kubectl_scale', result: { changes } });
    expect(scaledWith('spec.replicas: 12 → 5')?.params).toMatchObject({ replicas: 12 });
    expect(scaledWith('spec.replicas: 3 → 15')?.params).toMatchObject({ replicas: 3 });
    expect(scaledWith('template.spec.replicas: 3 → 5')).toBeNull();
    expect(scaledWith('spec.replicas: 3 → 5 (capped)')).toBeNull();
    expect(scaledWith(['spec.replicas: 3 → 5'])).toBeNull();
    expect(undoCallFor({ ...base, tool: 'kubectl_scale', result: 'spec.replicas: 3 → 5' })).toBeNull();
  });

  it('sets no replicas back for a tool that did not scale, whatever its answer says', () => {
    const restartedSts = {
      ...base,
      workload: { kind: 'statefulset', namespace: 'shop', name: 'db' },
      result: { changes: ['spec.replicas: 3 → 5'] },
    };
    expect(undoCallFor(restartedSts)).toBeNull();
  });

  it('counts restart, undo and scale as rollout changes, a pod deletion not', () => {
    expect([...ROLLOUT_TOOLS].sort()).toEqual(['kubectl_rollout_restart', 'kubectl_rollout_undo', 'kubectl_scale']);
  });

  it('offers nothing for a pod deletion or a restart of what kubectl_rollout_undo cannot roll back', () => {
    expect(
      undoCallFor({ ...base, tool: 'kubectl_delete_pod', workload: { kind: 'pod', namespace: 'shop', name: 'p' } }),
    ).toBeNull();
    expect(undoCallFor({ ...base, workload: { kind: 'statefulset', namespace: 'shop', name: 'db' } })).toBeNull();
  });
});
