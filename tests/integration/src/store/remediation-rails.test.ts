import { afterEach, describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { noMetrics, type Metrics, type RemediationOutcome } from '../../../../src/observability/metrics.js';
import {
  onRemediationApplied,
  type RemediationApplied,
  type RemediationProposal,
  type RemediationRules,
} from '../../../../src/records/remediation.js';
import type { ToolResult } from '../../../../src/records/tool-result.js';
import { redisRemediationRails } from '../../../../src/store/remediation-rails.js';
import {
  acquireInFlight,
  appliedOn,
  extendInFlight,
  listRemediation,
  releaseInFlight,
  setVerification,
} from '../../../../src/store/remediation-log.js';
import { captureLog } from '../../../helpers/log-capture.js';
import { redisClient } from '../../../helpers/redis-client.js';

// The remediation rails on a real Redis (docs/remediation.md, "Rails"): one in flight per workload across
// investigations, the daily cap, and one entry, count, metric, log line and hook call per applied call however
// often a resumed run hands it in.

const r = redisClient();
const NOW = new Date('2026-12-07T10:00:00Z');
const rules = (over: Partial<RemediationRules> = {}): RemediationRules => ({
  workload: (p) => ({ kind: String(p.kind), namespace: String(p.namespace), name: String(p.name) }),
  maxActionsPerDay: 20,
  maxActionsPerDayKey: 'toolsets.kubernetes_remediation.maxActionsPerDay',
  inFlightSeconds: 7200,
  holdAfterApplySeconds: 0,
  ...over,
});
const WEB = { kind: 'deployment', namespace: 'shop', name: 'web', replicas: 5 };
const proposal = (toolCallId: string, over: Partial<RemediationRules> = {}, params = WEB): RemediationProposal => ({
  toolCallId,
  tool: 'kubectl_scale',
  rules: rules(over),
  params,
});
const success = (alreadyApplied = false): ToolResult => ({
  tool: 'kubectl_scale',
  status: 'success',
  data: '{"applied":true}',
  params: WEB,
  elapsedMs: 5,
  ...(alreadyApplied ? { alreadyApplied: true as const } : {}),
});
const ALICE = { via: 'slack' as const, user: 'U123', name: 'alice' };

function railsOf(id: string) {
  const counted: Array<[string, RemediationOutcome]> = [];
  const metrics: Metrics = { ...noMetrics, remediation: (tool, result) => counted.push([tool, result]) };
  const { lines, log } = captureLog('info');
  return { rails: redisRemediationRails(r.client, id, { log, metrics, now: () => NOW }), counted, lines };
}

const unsubscribe: Array<() => void> = [];
afterEach(() => unsubscribe.splice(0).forEach((u) => u()));

describe('one remediation in flight per workload', () => {
  it('refuses a second proposal on the same object, naming the investigation and call that hold it', async () => {
    const a = railsOf('inv-a');
    const b = railsOf('inv-b');
    expect(await a.rails.propose(proposal('call-1'))).toBeNull();
    const refused = await b.rails.propose(proposal('call-9'));
    expect(refused).toBe(
      'deployment shop/web already has a remediation in flight: investigation inv-a, call call-1; nobody was ' +
        'asked: propose it again once that one is done',
    );
    expect(b.counted).toEqual([['kubectl_scale', 'refused']]);
    expect(b.lines.at(-1)).toMatchObject({ investigationId: 'inv-b', toolCallId: 'call-9', reason: refused });
    // Another object is free; the same call proposed again (a step re-run) keeps its hold.
    expect(await b.rails.propose(proposal('call-9', {}, { ...WEB, name: 'api' }))).toBeNull();
    expect(await a.rails.propose(proposal('call-1'))).toBeNull();
  });

  it('holds the workload for inFlightSeconds, and frees it when the proposal is denied or expires', async () => {
    const a = railsOf('inv-a');
    await a.rails.propose(proposal('call-1', { inFlightSeconds: 300 }));
    const key = keys.remediationInFlight('deployment', 'shop', 'web');
    expect(await r.client.ttl(key)).toBeGreaterThan(290);
    expect(JSON.parse((await r.client.get(key))!)).toEqual({ investigationId: 'inv-a', toolCallId: 'call-1' });
    await railsOf('inv-b').rails.drop(proposal('call-1')); // not its hold: left alone
    expect(await r.client.exists(key)).toBe(1);
    await a.rails.drop(proposal('call-1'));
    expect(await r.client.exists(key)).toBe(0);
    expect(await railsOf('inv-b').rails.propose(proposal('call-2'))).toBeNull();
  });

  it('exports acquire, extend and release that only the holder can extend or release', async () => {
    const w = { kind: 'deployment', namespace: 'shop', name: 'web' };
    const holder = { investigationId: 'inv-a', toolCallId: 'c1' };
    const other = { investigationId: 'inv-b', toolCallId: 'c2' };
    expect(await acquireInFlight(r.client, w, holder, 60)).toBeNull();
    expect(await acquireInFlight(r.client, w, other, 60)).toEqual(holder);
    expect(await extendInFlight(r.client, w, other, 900)).toBe(false);
    expect(await extendInFlight(r.client, w, holder, 900)).toBe(true);
    expect(await r.client.ttl(keys.remediationInFlight('deployment', 'shop', 'web'))).toBeGreaterThan(890);
    expect(await releaseInFlight(r.client, w, other)).toBe(false);
    expect(await releaseInFlight(r.client, w, holder)).toBe(true);
    expect(await acquireInFlight(r.client, w, other, 60)).toBeNull();
    await expect(extendInFlight(r.client, w, other, 0)).rejects.toThrow(/releaseInFlight/);
  });
});

describe('maxActionsPerDay', () => {
  it('refuses proposals once that many actions were applied this UTC day, naming the key to raise', async () => {
    const a = railsOf('inv-a');
    for (const id of ['c1', 'c2']) {
      const p = proposal(id, { maxActionsPerDay: 2 }, { ...WEB, name: `web-${id}` });
      expect(await a.rails.propose(p)).toBeNull();
      await a.rails.ran({ ...p, appliedId: `run/1:${id}`, result: success(), approvedBy: ALICE });
    }
    expect(await appliedOn(r.client, NOW)).toBe(2);
    const refused = await a.rails.propose(proposal('c3', { maxActionsPerDay: 2 }));
    expect(refused).toBe(
      '2 remediations were applied today (UTC), the most toolsets.kubernetes_remediation.maxActionsPerDay allows ' +
        '(2): nobody was asked; raise toolsets.kubernetes_remediation.maxActionsPerDay to allow more',
    );
    // Nothing held for a refused proposal.
    expect(await r.client.exists(keys.remediationInFlight('deployment', 'shop', 'web'))).toBe(0);
    expect(await a.rails.propose(proposal('c3', { maxActionsPerDay: 3 }))).toBeNull();
  });

  it('counts an action once however often it is handed in, and a failed one not at all', async () => {
    const a = railsOf('inv-a');
    const p = proposal('c1');
    await a.rails.ran({ ...p, appliedId: 'run/1:c1', result: success() });
    await a.rails.ran({ ...p, appliedId: 'run/1:c1', result: success(true) });
    await a.rails.ran({ ...proposal('c2'), appliedId: 'run/1:c2', result: { ...success(), status: 'error' } });
    expect(await appliedOn(r.client, NOW)).toBe(1);
    expect(await appliedOn(r.client, new Date('2026-12-08T00:00:01Z'))).toBe(0);
  });
});

describe('the remediation record', () => {
  it('writes one entry, one metric, one log line with the approver and one hook call per applied call', async () => {
    await r.client.hset(keys.investigation('inv-a'), 'id', 'inv-a');
    await r.client.expire(keys.investigation('inv-a'), 1000);
    const heard: RemediationApplied[] = [];
    unsubscribe.push(onRemediationApplied((e) => heard.push(e)));
    const a = railsOf('inv-a');
    const p = proposal('c1');
    await a.rails.propose(p);
    await a.rails.ran({ ...p, appliedId: 'run/1:c1', result: success(), approvedBy: ALICE });
    await a.rails.ran({ ...p, appliedId: 'run/1:c1', result: success(true), approvedBy: ALICE });
    const entries = await listRemediation(r.client, 'inv-a');
    expect(entries).toEqual([
      {
        toolCallId: 'c1',
        appliedId: 'run/1:c1',
        tool: 'kubectl_scale',
        params: WEB,
        workload: { kind: 'deployment', namespace: 'shop', name: 'web' },
        approvedBy: ALICE,
        appliedAt: NOW.toISOString(),
        result: 'applied',
        output: '{"applied":true}',
      },
    ]);
    expect(await r.client.ttl(keys.remediation('inv-a'))).toBeGreaterThan(990);
    expect(a.counted).toEqual([['kubectl_scale', 'applied']]);
    const logged = a.lines.filter((l) => String(l.msg).startsWith('remediation applied'));
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ approvedBy: 'slack:U123', tool: 'kubectl_scale', appliedId: 'run/1:c1' });
    expect(logged[0]!.msg).toBe('remediation applied: kubectl_scale on deployment shop/web, approved by slack:U123');
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({
      investigationId: 'inv-a',
      toolCallId: 'c1',
      workload: { kind: 'deployment', namespace: 'shop', name: 'web' },
      approvedBy: ALICE,
      result: 'applied',
    });
    // Applied: the workload is free again (holdAfterApplySeconds 0).
    expect(await r.client.exists(keys.remediationInFlight('deployment', 'shop', 'web'))).toBe(0);
  });

  it('records already_applied and failed as such; a failed one announces nothing', async () => {
    const heard: RemediationApplied[] = [];
    unsubscribe.push(onRemediationApplied((e) => heard.push(e)));
    unsubscribe.push(
      onRemediationApplied(() => {
        throw new Error('listener broke');
      }),
    );
    const a = railsOf('inv-a');
    await a.rails.ran({ ...proposal('c1'), appliedId: 'r/1:c1', result: success(true) });
    const failed: ToolResult = {
      tool: 'kubectl_scale',
      status: 'error',
      error: 'forbidden',
      params: WEB,
      elapsedMs: 1,
    };
    await a.rails.ran({ ...proposal('c2'), appliedId: 'r/1:c2', result: failed });
    const entries = await listRemediation(r.client, 'inv-a');
    expect(entries.map((e) => [e.toolCallId, e.result, e.output])).toEqual([
      ['c1', 'already_applied', '{"applied":true}'],
      ['c2', 'failed', 'forbidden'],
    ]);
    expect(entries[0]).not.toHaveProperty('approvedBy');
    expect(a.counted).toEqual([
      ['kubectl_scale', 'already_applied'],
      ['kubectl_scale', 'failed'],
    ]);
    expect(heard.map((e) => e.toolCallId)).toEqual(['c1']);
    expect(a.lines.some((l) => l.msg === 'an onRemediationApplied listener failed')).toBe(true);
  });

  it('keeps the workload held for holdAfterApplySeconds after an applied action, not after a failed one', async () => {
    const a = railsOf('inv-a');
    const p = proposal('c1', { holdAfterApplySeconds: 600 });
    await a.rails.propose(p);
    await a.rails.ran({ ...p, appliedId: 'r/1:c1', result: success() });
    const key = keys.remediationInFlight('deployment', 'shop', 'web');
    expect(await r.client.ttl(key)).toBeGreaterThan(590);
    expect(await r.client.ttl(key)).toBeLessThanOrEqual(600);
    const q = proposal('c2', { holdAfterApplySeconds: 600 }, { ...WEB, name: 'api' });
    await a.rails.propose(q);
    await a.rails.ran({ ...q, appliedId: 'r/1:c2', result: { ...success(), status: 'error', error: 'no' } });
    expect(await r.client.exists(keys.remediationInFlight('deployment', 'shop', 'api'))).toBe(0);
  });

  it('sets the verification of the latest entry of a call id, and says when there is none', async () => {
    const a = railsOf('inv-a');
    await a.rails.ran({ ...proposal('c1'), appliedId: 'run-1/1:c1', result: success() });
    const later = redisRemediationRails(r.client, 'inv-a', {
      log: captureLog().log,
      now: () => new Date('2026-12-07T11:00:00Z'),
    });
    await later.ran({ ...proposal('c1'), appliedId: 'run-2/1:c1', result: success() });
    const verification = {
      status: 'mitigated' as const,
      checkedAt: '2026-12-07T11:05:00Z',
      evidence: 'alert resolved',
    };
    expect(await setVerification(r.client, 'inv-a', 'c1', verification)).toBe(true);
    const entries = await listRemediation(r.client, 'inv-a');
    expect(entries.map((e) => [e.appliedId, e.verification])).toEqual([
      ['run-1/1:c1', undefined],
      ['run-2/1:c1', verification],
    ]);
    expect(await setVerification(r.client, 'inv-a', 'nope', verification)).toBe(false);
  });
});
