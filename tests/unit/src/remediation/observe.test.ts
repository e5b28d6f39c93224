import { describe, expect, it } from 'vitest';
import type { RemediationApplied } from '../../../../src/remediation/applied-event.js';
import { observe } from '../../../../src/remediation/observe.js';
import type { AlertProbe, VerifyProbes } from '../../../../src/remediation/probes.js';
import { anAlert } from '../../../helpers/issue.js';
import { captureLog } from '../../../helpers/log-capture.js';

// One look for the verifier: each probe on its own, one that fails or is missing counts as no answer, said in the log.

const restart: RemediationApplied = {
  investigationId: 'inv-1',
  toolCallId: 'call-1',
  tool: 'kubectl_rollout_restart',
  params: {},
  workload: { kind: 'deployment', namespace: 'shop', name: 'web' },
  approvedBy: 'alice',
  appliedAt: '2026-12-07T10:00:00.000Z',
  result: { applied: true },
};
const at = { now: 1_000, deadline: 2_000 };
const inv = {
  issue: anAlert('HighErrorRate', { labels: { alertname: 'HighErrorRate' } }),
  issueStatus: 'open',
  resolvedAt: null,
  source: 'alertmanager',
} as const;
const broken: AlertProbe = {
  name: 'Alertmanager',
  check: async () => {
    throw new Error('connection refused');
  },
};
const quiet: AlertProbe = { name: 'Prometheus', check: async () => ({ firing: false, via: 'Prometheus ALERTS' }) };

describe('observe', () => {
  it('reads a rollout that cannot be read as unreadable, and says why in the log', async () => {
    const { lines, log } = captureLog();
    const probes: VerifyProbes = {
      rollout: async () => {
        throw new Error('forbidden');
      },
    };
    const o = await observe(restart, inv, probes, at, log);
    expect(o.rollout).toBe('unreadable');
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'rollout not readable', err: 'forbidden' }));
    expect((await observe(restart, inv as never, {}, at, log)).rollout).toBe('unreadable');
    expect((await observe({ ...restart, tool: 'kubectl_delete_pod' }, inv as never, probes, at, log)).rollout).toBe(
      'n/a',
    );
  });

  it('asks the next alert probe when one does not answer', async () => {
    const { lines, log } = captureLog();
    const o = await observe(restart, inv, { alerts: [broken, quiet] }, at, log);
    expect(o.issue).toEqual({ resolved: true, at: 1_000, what: 'alert', via: 'Prometheus ALERTS' });
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'alert probe did not answer', probe: 'Alertmanager', err: 'connection refused' }),
    );
    const none = await observe(restart, inv, { alerts: [broken] }, at, log);
    expect(none.issue).toEqual({ resolved: false, live: false, what: 'alert', via: 'its status in alertmanager' });
  });

  it('says so when the investigation is gone', async () => {
    const o = await observe(restart, null, { alerts: [quiet] }, at, captureLog().log);
    expect(o.issue).toEqual({ resolved: false, live: false, what: 'issue', via: 'the investigation is gone' });
  });
});
