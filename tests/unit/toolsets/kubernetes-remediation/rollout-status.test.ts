import { describe, expect, it } from 'vitest';
import { rolloutStateOf } from '../../../../toolsets/kubernetes-remediation/rollout-status.js';

const deploy = (status: Record<string, unknown>, generation = 4, replicas = 3) => ({
  metadata: { name: 'web', generation },
  spec: { replicas },
  status,
});

describe('rolloutStateOf, as kubectl rollout status judges', () => {
  it('a deployment: done when every replica is updated and available and the latest spec observed', () => {
    const full = { observedGeneration: 4, replicas: 3, updatedReplicas: 3, availableReplicas: 3 };
    expect(rolloutStateOf('deployment', deploy(full))).toEqual({
      state: 'done',
      detail: '3 of 3 replicas updated and available',
    });
    expect(rolloutStateOf('deployment', deploy({ ...full, observedGeneration: 3 }))).toMatchObject({
      state: 'progressing',
      detail: 'the controller has not yet seen the latest spec',
    });
    expect(rolloutStateOf('deployment', deploy({ ...full, updatedReplicas: 1 })).detail).toBe(
      '1 of 3 new replicas updated',
    );
    expect(rolloutStateOf('deployment', deploy({ ...full, replicas: 4 })).detail).toBe(
      '1 old replicas pending termination',
    );
    expect(rolloutStateOf('deployment', deploy({ ...full, availableReplicas: 2 })).detail).toBe(
      '2 of 3 updated replicas available',
    );
  });

  it('a deployment past its progress deadline has failed', () => {
    const stuck = {
      observedGeneration: 4,
      updatedReplicas: 1,
      conditions: [{ type: 'Progressing', reason: 'ProgressDeadlineExceeded' }],
    };
    expect(rolloutStateOf('deployment', deploy(stuck))).toEqual({
      state: 'failed',
      detail: 'deployment/web exceeded its progress deadline',
    });
  });

  it('a statefulset: ready replicas, and the update revision the current one', () => {
    const sts = (status: Record<string, unknown>) => ({
      metadata: { name: 'db', generation: 2 },
      spec: { replicas: 2 },
      status,
    });
    const ok = { observedGeneration: 2, readyReplicas: 2, currentRevision: 'db-2', updateRevision: 'db-2' };
    expect(rolloutStateOf('statefulset', sts(ok))).toEqual({ state: 'done', detail: '2 pods ready at revision db-2' });
    expect(rolloutStateOf('statefulset', sts({ ...ok, readyReplicas: 1 })).state).toBe('progressing');
    expect(rolloutStateOf('statefulset', sts({ ...ok, currentRevision: 'db-1', updatedReplicas: 1 })).detail).toBe(
      '1 of 2 pods at revision db-2',
    );
    expect(rolloutStateOf('statefulset', sts({ ...ok, observedGeneration: 0 })).state).toBe('progressing');
  });

  it('a daemonset: every desired pod updated and available', () => {
    const ds = (status: Record<string, unknown>) => ({ metadata: { name: 'agent', generation: 1 }, status });
    const ok = { observedGeneration: 1, desiredNumberScheduled: 4, updatedNumberScheduled: 4, numberAvailable: 4 };
    expect(rolloutStateOf('daemonset', ds(ok)).state).toBe('done');
    expect(rolloutStateOf('daemonset', ds({ ...ok, updatedNumberScheduled: 3 })).detail).toBe(
      '3 of 4 updated pods scheduled',
    );
    expect(rolloutStateOf('daemonset', ds({ ...ok, numberAvailable: 2 })).detail).toBe('2 of 4 updated pods available');
    expect(() => rolloutStateOf('pod', ds(ok))).toThrow('no rollout to follow for kind pod');
  });
});
