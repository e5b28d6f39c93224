/**
 * The verification of an applied remediation end to end on real parts: a real Redis (the delayed BullMQ job), a real
 * prometheus-alertmanager (the alert resolved or kept firing), the real kubectl reading the Kubernetes API double
 * (the rollout done or not) after the real kubectl_scale / kubectl_rollout_restart wrote to it. Short windows
 * (seconds) stand in for the 10 minutes; the tests poll for the recorded verification, they time nothing.
 */
import { Redis } from 'ioredis';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RemediationVerification } from '../../../../src/records/remediation.js';
import type { RemediationApplied } from '../../../../src/remediation/applied-event.js';
import { undoCallFor, type UndoCall } from '../../../../src/remediation/undo-call.js';
import { RemediationVerifier, type VerifyTiming } from '../../../../src/remediation/verifier.js';
import { verifyJobId } from '../../../../src/redis/job-data.js';
import { keysOf } from '../../../../src/redis/keys.js';
import { openQueue } from '../../../../src/redis/open-queue.js';
import { VERIFY_QUEUE_NAME } from '../../../../src/redis/queue-names.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { callKey } from '../../../../src/tools/call-key.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { alertmanagerProbe } from '../../../../toolsets/alertmanager/alert-probe.js';
import { RemediationSettingsSchema } from '../../../../toolsets/kubernetes-remediation/config.js';
import { createRemediationToolset, createRolloutProbe } from '../../../../toolsets/kubernetes-remediation/index.js';
import { pushAlerts, startAlertmanager, type TestAlertmanager } from '../../../helpers/alertmanager.js';
import { startKubernetesApiDouble, type KubernetesApiDouble } from '../../../helpers/doubles/kubernetes-api-double.js';
import { anAlert, anIssue } from '../../../helpers/issue.js';
import { captureLog } from '../../../helpers/log-capture.js';
import { redisClient } from '../../../helpers/redis-client.js';
import { requireBinary } from '../../../helpers/require-binary.js';

const r = redisClient();
const LABELS = { alertname: 'HighErrorRate', namespace: 'shop', service: 'web' };
let am: TestAlertmanager;
let k8s: KubernetesApiDouble;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  requireBinary('kubectl');
  am = await startAlertmanager({ webhookUrl: 'http://127.0.0.1:9/nowhere', token: 't' });
  return () => am.stop();
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await k8s?.stop();
});

async function startK8s() {
  k8s = await startKubernetesApiDouble(
    [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'shop', generation: 1 },
        spec: {
          replicas: 3,
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } } },
        },
      },
    ],
    { writable: true },
  );
  k8s.setRollout('Deployment', 'shop', 'web', 'rolled_out');
  const settings = RemediationSettingsSchema.parse({
    enabled: true,
    context: 'double',
    kubeconfig: k8s.kubeconfig,
    namespaces: ['shop'],
  });
  return { settings, tools: new ToolExecutor({ tools: createRemediationToolset(settings, { env: k8s.env }).tools }) };
}

/** Runs an approved remediation call for real, and the event the remediation log's hook would fire for it. */
async function apply(
  exec: ToolExecutor,
  investigationId: string,
  tool: string,
  params: Record<string, unknown>,
): Promise<RemediationApplied> {
  const text = JSON.stringify(params);
  const out = await exec.execute(
    { id: 'call-1', name: tool, arguments: text },
    { approvedCallKey: callKey(tool, text), approvalId: `${investigationId}/1:call-1` },
  );
  expect(out.status).toBe('success');
  return {
    investigationId,
    toolCallId: 'call-1',
    tool,
    params,
    workload: { kind: 'deployment', namespace: 'shop', name: 'web' },
    approvedBy: 'alice',
    appliedAt: new Date().toISOString(),
    result: JSON.parse(out.data!) as unknown,
  };
}

async function anInvestigation(): Promise<string> {
  const store = new InvestigationStore(r.client, { dedupTtlSeconds: 3600, retentionSeconds: 86_400 });
  const issue = anAlert(`am-${Math.random()}`, { labels: LABELS, fingerprint: '0123456789abcdef' });
  const { items } = await store.claims.claimMany([{ kind: 'claim', issue, status: 'queued', priority: 0 }], new Date());
  return items[0]!.id;
}

function verifier(settings: Parameters<typeof createRolloutProbe>[0], timing: Partial<VerifyTiming>) {
  const saved = new Map<string, RemediationVerification>();
  const undos: UndoCall[] = [];
  const store = new InvestigationStore(r.client, { dedupTtlSeconds: 3600, retentionSeconds: 86_400 });
  const v = new RemediationVerifier(
    r.client,
    {
      store,
      probes: { rollout: createRolloutProbe(settings, { env: k8s.env }), alerts: [alertmanagerProbe(am.url)] },
      saveVerification: async (id, call, verification) => void saved.set(`${id}/${call}`, verification),
      // What the composition root does with it: the undo of a rollout change that did not help (actions/offer-undo).
      onVerified: async (e, verification) => {
        const undo = verification.status === 'not_mitigated' ? undoCallFor(e) : null;
        if (undo) undos.push(undo);
      },
      log: captureLog().log,
    },
    { windowSeconds: 60, intervalSeconds: 0.2, retentionSeconds: 3600, ...timing },
  );
  const conn = new Redis(r.redis.url, { maxRetriesPerRequest: null });
  const worker = v.start(conn);
  closers.push(
    () => v.close(),
    async () => conn.disconnect(),
    () => worker.close(),
  );
  return { v, saved, undos };
}

describe('remediation verification', () => {
  it('marks a restart "mitigated" once its rollout finished and the alert resolved in Alertmanager', async () => {
    const { settings, tools } = await startK8s();
    const id = await anInvestigation();
    await pushAlerts(am.url, [{ labels: LABELS }]);
    const event = await apply(tools, id, 'kubectl_rollout_restart', {
      kind: 'deployment',
      namespace: 'shop',
      name: 'web',
    });
    const { v, saved } = verifier(settings, {});
    await v.applied(event);
    await v.applied(event); // the hook fired twice: still one job
    // The restart bumped the generation: until the controller catches up the rollout is not done; nor is the alert.
    const first = await v.check({ event, deadline: Date.now() + 60_000 });
    expect(first).toBeNull();
    k8s.setRollout('Deployment', 'shop', 'web', 'rolled_out');
    expect(await v.check({ event, deadline: Date.now() + 60_000 })).toBeNull(); // the alert still fires
    await pushAlerts(am.url, [{ labels: LABELS, endsAt: new Date(Date.now() - 1000).toISOString() }]);
    await vi.waitFor(() => expect(saved.get(`${id}/call-1`)).toBeDefined(), { timeout: 20_000, interval: 100 });
    const got = saved.get(`${id}/call-1`)!;
    expect(got.status).toBe('mitigated');
    expect(got.evidence).toMatch(
      /^the alert resolved \d+ s after the restart of deployment\/web approved by alice and the rollout finished \(3 of 3 replicas updated and available\) \(Alertmanager at http:\/\/127\.0\.0\.1:\d+\)$/,
    );
    const jobs = openQueue(r.client, VERIFY_QUEUE_NAME);
    closers.push(() => jobs.close());
    // One job, however often the hook fired, finished: nothing left to check.
    const counts = await jobs.getJobCounts('completed', 'delayed', 'waiting', 'active');
    expect([counts.completed, counts.delayed, counts.waiting, counts.active]).toEqual([1, 0, 0, 0]);
    expect(await jobs.getJobState(verifyJobId(id, 'call-1'))).toBe('completed');
  });

  it('marks a scale "not_mitigated" when the alert still fires at the end of the window, and offers its undo', async () => {
    const { settings, tools } = await startK8s();
    const id = await anInvestigation();
    await pushAlerts(am.url, [{ labels: LABELS }]);
    const event = await apply(tools, id, 'kubectl_scale', {
      kind: 'deployment',
      namespace: 'shop',
      name: 'web',
      replicas: 5,
    });
    k8s.setRollout('Deployment', 'shop', 'web', 'rolled_out');
    const { v, saved, undos } = verifier(settings, { windowSeconds: 2 });
    await v.applied(event);
    await vi.waitFor(() => expect(saved.get(`${id}/call-1`)).toBeDefined(), { timeout: 20_000, interval: 100 });
    expect(saved.get(`${id}/call-1`)).toMatchObject({
      status: 'not_mitigated',
      evidence: expect.stringMatching(
        /^the alert was still firing 2 s after the scaling of deployment\/web to 5 approved by alice \(Alertmanager at /,
      ) as unknown,
    });
    expect(undos).toEqual([
      { tool: 'kubectl_scale', params: { kind: 'deployment', namespace: 'shop', name: 'web', replicas: 3 } },
    ]);
  });

  it('marks a restart whose rollout got stuck "not_mitigated" at once', async () => {
    const { settings, tools } = await startK8s();
    const id = await anInvestigation();
    await pushAlerts(am.url, [{ labels: LABELS }]);
    const event = await apply(tools, id, 'kubectl_rollout_restart', {
      kind: 'deployment',
      namespace: 'shop',
      name: 'web',
    });
    k8s.setRollout('Deployment', 'shop', 'web', 'stuck');
    const { v, saved, undos } = verifier(settings, { windowSeconds: 600 });
    await v.applied(event);
    await vi.waitFor(() => expect(saved.get(`${id}/call-1`)).toBeDefined(), { timeout: 20_000, interval: 100 });
    expect(saved.get(`${id}/call-1`)?.evidence).toBe(
      'the rollout after the restart of deployment/web approved by alice failed: deployment/web exceeded its progress deadline',
    );
    expect(undos).toEqual([{ tool: 'kubectl_rollout_undo', params: { namespace: 'shop', name: 'web' } }]);
  });

  it('survives a restart: a job a stopped worker left is settled, once, by the next process', async () => {
    const { settings, tools } = await startK8s();
    const id = await anInvestigation();
    await pushAlerts(am.url, [{ labels: LABELS }]);
    const event = await apply(tools, id, 'kubectl_rollout_restart', {
      kind: 'deployment',
      namespace: 'shop',
      name: 'web',
    });
    k8s.setRollout('Deployment', 'shop', 'web', 'rolled_out');
    const first = verifier(settings, {});
    await first.v.applied(event);
    const reads = () => k8s.requests.filter((q) => q.method === 'GET' && q.path.endsWith('/deployments/web')).length;
    const before = reads();
    // The first process looks at least once (the alert still fires), then stops.
    await vi.waitFor(() => expect(reads()).toBeGreaterThan(before), { timeout: 20_000, interval: 50 });
    for (const close of closers.splice(0).reverse()) await close();
    await pushAlerts(am.url, [{ labels: LABELS, endsAt: new Date(Date.now() - 1000).toISOString() }]);
    const second = verifier(settings, {});
    await second.v.applied(event); // its hook fires again after the restart: still the one job
    await vi.waitFor(() => expect(second.saved.get(`${id}/call-1`)).toBeDefined(), { timeout: 20_000, interval: 100 });
    expect(second.saved.get(`${id}/call-1`)?.status).toBe('mitigated');
    expect(first.saved.size).toBe(0);
  });

  it("takes a ticket's own status: resolved is mitigated, still open at the end is unknown", async () => {
    const { settings, tools } = await startK8s();
    const store = new InvestigationStore(r.client, { dedupTtlSeconds: 3600, retentionSeconds: 86_400 });
    const claim = async (key: string) =>
      (
        await store.claims.claimMany(
          [{ kind: 'claim', issue: anIssue(key), status: 'queued', priority: 0 }],
          new Date(),
        )
      ).items[0]!.id;
    const [closed, open] = [await claim('OPS-1'), await claim('OPS-2')];
    const restart = { kind: 'deployment', namespace: 'shop', name: 'web' };
    const closedEvent = await apply(tools, closed, 'kubectl_rollout_restart', restart);
    const openEvent = { ...closedEvent, investigationId: open };
    k8s.setRollout('Deployment', 'shop', 'web', 'rolled_out');
    // The source reported the ticket resolved (as intake's claim script records it).
    const resolvedAt = new Date(Date.parse(closedEvent.appliedAt) + 1000).toISOString();
    await r.client.hset(keysOf(r.client).investigation(closed), { issueStatus: 'resolved', resolvedAt });
    const { v, saved, undos } = verifier(settings, { windowSeconds: 2 });
    await v.applied(closedEvent);
    await v.applied(openEvent);
    await vi.waitFor(() => expect(saved.size).toBe(2), { timeout: 20_000, interval: 100 });
    expect(saved.get(`${closed}/call-1`)).toMatchObject({
      status: 'mitigated',
      evidence: expect.stringMatching(
        /^the issue resolved 1 s after the restart of deployment\/web approved by alice/,
      ) as unknown,
    });
    expect(saved.get(`${open}/call-1`)).toMatchObject({
      status: 'unknown',
      evidence: expect.stringContaining('the issue was still open 2 s after it (its status in tickets)') as unknown,
    });
    expect(undos).toEqual([]);
  });
});
