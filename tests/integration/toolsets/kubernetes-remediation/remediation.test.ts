/**
 * The remediation toolset with the real kubectl against a writable Kubernetes API double: what the approval shows
 * (the server's dry run), the rails, and that an approval run twice (a worker that stopped, a redelivered job)
 * makes one write. `k8s.writes` records every PATCH and DELETE; the applied ones are those without dryRun.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { callKey } from '../../../../src/tools/call-key.js';
import { RemediationSettingsSchema } from '../../../../toolsets/kubernetes-remediation/config.js';
import { createRemediationToolset } from '../../../../toolsets/kubernetes-remediation/index.js';
import {
  startKubernetesApiDouble,
  type KubeDoubleOptions,
  type KubeObject,
  type KubernetesApiDouble,
} from '../../../helpers/doubles/kubernetes-api-double.js';
import { requireBinary } from '../../../helpers/require-binary.js';

const template = (image: string, hash?: string) => ({
  metadata: { labels: { app: 'web', ...(hash && { 'pod-template-hash': hash }) } },
  spec: { containers: [{ name: 'web', image }] },
});
const owned = { ownerReferences: [{ kind: 'Deployment', name: 'web' }] };
const objects = (): KubeObject[] => [
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop', annotations: { 'deployment.kubernetes.io/revision': '2' } },
    spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: template('web:2') },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'web-1',
      namespace: 'shop',
      labels: { app: 'web' },
      annotations: { 'deployment.kubernetes.io/revision': '1' },
      ...owned,
    },
    spec: { template: template('web:1', 'h1') },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: 'web-2',
      namespace: 'shop',
      labels: { app: 'web' },
      annotations: { 'deployment.kubernetes.io/revision': '2' },
      ...owned,
    },
    spec: { template: template('web:2', 'h2') },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'ledger', namespace: 'shop', labels: { 'lestrade.io/no-remediation': 'true' } },
    spec: { replicas: 2, template: template('ledger:1') },
  },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'billing', namespace: 'shop', labels: { 'lestrade.io/no-remediation': 'false' } },
    spec: { replicas: 2, template: template('billing:1') },
  },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'pinned', namespace: 'shop', labels: { 'lestrade.io/no-remediation': '' } },
  },
  {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web-2-abc',
      namespace: 'shop',
      creationTimestamp: '2026-12-07T10:00:00Z',
      ...{ ownerReferences: [{ kind: 'ReplicaSet', name: 'web-2' }] },
    },
  },
];

let k8s: KubernetesApiDouble;
let exec: ToolExecutor;
beforeAll(() => requireBinary('kubectl'));
afterEach(async () => k8s?.stop());

/** The double, and the toolset writing through its own context "double" while kubectl's current context is another. */
async function start(settings: Record<string, unknown> = {}, opts: KubeDoubleOptions = {}) {
  k8s = await startKubernetesApiDouble(objects(), { writable: true, ...opts });
  // The read-only tools' context (current) points at a closed port: a write through it would fail.
  const kubeconfig = join(k8s.env.HOME!, 'two-contexts');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{ name: double, cluster: { server: "${k8s.url}" } }, { name: nowhere, cluster: { server: "http://127.0.0.1:9" } }]`,
      'users: [{ name: u, user: {} }]',
      'contexts: [{ name: remediation, context: { cluster: double, user: u } }, { name: readonly, context: { cluster: nowhere, user: u } }]',
      'current-context: readonly',
    ].join('\n'),
  );
  const config = RemediationSettingsSchema.parse({
    enabled: true,
    context: 'remediation',
    kubeconfig,
    namespaces: ['shop'],
    ...settings,
  });
  exec = new ToolExecutor({ tools: createRemediationToolset(config, { env: k8s.env }).tools });
}

const applied = () => k8s.writes.filter((w) => !w.dryRun);
const ask = (name: string, args: Record<string, unknown>) =>
  exec.execute({ id: 'c1', name, arguments: JSON.stringify(args) });
const approved = (name: string, args: Record<string, unknown>, approvalId = 'inv-1/1:c1', interruptedAt?: string) => {
  const text = JSON.stringify(args);
  return exec.execute(
    { id: 'c1', name, arguments: text },
    { approvedCallKey: callKey(name, text), approvalId, ...(interruptedAt && { interruptedAt }) },
  );
};

describe('kubernetes_remediation: what the approval shows', () => {
  it("asks with the server's dry run of a scale, and writes nothing", async () => {
    await start();
    const r = await ask('kubectl_scale', { kind: 'deployment', namespace: 'shop', name: 'web', replicas: 5 });
    expect(r.status).toBe('approval_required');
    expect(r.error).toBe(
      "Scale deployment/web in shop from 3 to 5 replicas. The API server's dry run says:\n  spec.replicas: 3 → 5",
    );
    expect(k8s.writes.map((w) => [w.method, w.path, w.dryRun])).toEqual([
      ['PATCH', '/apis/apps/v1/namespaces/shop/deployments/web', true],
    ]);
    expect(applied()).toEqual([]);
  });

  it('shows the revision and image a rollback goes back to', async () => {
    await start();
    const r = await ask('kubectl_rollout_undo', { namespace: 'shop', name: 'web' });
    expect(r.error).toContain('Roll back deployment/web in shop from revision 2 to revision 1 (web:1)');
    expect(r.error).toContain(
      'spec.template.spec.containers: [{"image":"web:2","name":"web"}] → [{"image":"web:1","name":"web"}]',
    );
    expect(applied()).toEqual([]);
  });

  it('answers the model with the refusal when the API server refuses the dry run, asking nobody', async () => {
    await start(
      {},
      {
        refuse: () => ({
          code: 403,
          reason: 'Forbidden',
          message: 'deployments.apps "web" is forbidden: User "lestrade-remediation" cannot patch',
        }),
      },
    );
    const r = await ask('kubectl_rollout_restart', { kind: 'deployment', namespace: 'shop', name: 'web' });
    expect(r.status).toBe('error');
    expect(r.error).toContain(
      'the API server refused the dry run of this change, so nobody was asked and nothing changed',
    );
    expect(r.error).toContain('cannot patch');
    expect(applied()).toEqual([]);
  });
});

describe('kubernetes_remediation: rails', () => {
  it('refuses a namespace not listed without calling the API server, naming the key', async () => {
    await start();
    const r = await ask('kubectl_rollout_restart', { kind: 'deployment', namespace: 'kube-system', name: 'coredns' });
    expect(r).toMatchObject({ status: 'error' });
    expect(r.error).toContain('namespace "kube-system" is not in toolsets.kubernetes_remediation.namespaces (shop)');
    expect(k8s.requests.filter((q) => q.path.includes('kube-system'))).toEqual([]);
  });

  it('refuses every namespace when none is listed (the default)', async () => {
    await start({ namespaces: [] });
    const r = await ask('kubectl_delete_pod', { namespace: 'shop', name: 'web-2-abc' });
    expect(r.error).toContain('empty: no namespace may be changed');
  });

  it('refuses a workload carrying the opt-out label, and scales beyond maxReplicas or to 0', async () => {
    await start({ maxReplicas: 4 });
    expect(
      (await ask('kubectl_rollout_restart', { kind: 'deployment', namespace: 'shop', name: 'ledger' })).error,
    ).toContain('carries the label lestrade.io/no-remediation=true');
    expect(
      (await ask('kubectl_scale', { kind: 'deployment', namespace: 'shop', name: 'web', replicas: 5 })).error,
    ).toContain('over toolsets.kubernetes_remediation.maxReplicas (4)');
    expect(
      (await ask('kubectl_scale', { kind: 'deployment', namespace: 'shop', name: 'web', replicas: 0 })).error,
    ).toContain('toolsets.kubernetes_remediation.allowScaleToZero');
    // On a pod too, and with any value (here empty) but "false".
    expect((await ask('kubectl_delete_pod', { namespace: 'shop', name: 'pinned' })).error).toContain(
      'pod/pinned carries the label lestrade.io/no-remediation=: Lestrade never changes it',
    );
    expect(k8s.writes).toEqual([]);
    const allowed = await ask('kubectl_rollout_restart', { kind: 'deployment', namespace: 'shop', name: 'billing' });
    expect(allowed.status).toBe('approval_required');
  });

  it('refuses a kind not listed', async () => {
    await start({ kinds: ['deployment'] });
    expect((await ask('kubectl_delete_pod', { namespace: 'shop', name: 'web-2-abc' })).error).toContain(
      'kind "pod" is not in toolsets.kubernetes_remediation.kinds (deployment)',
    );
  });
});

describe('kubernetes_remediation: one approval, one write', () => {
  it('restarts once however many times the approval runs, and again for another approval', async () => {
    await start();
    const args = { kind: 'deployment', namespace: 'shop', name: 'web' };
    expect((await approved('kubectl_rollout_restart', args)).status).toBe('success');
    const again = await approved('kubectl_rollout_restart', args, 'inv-1/1:c1', '2026-12-07T10:00:00Z');
    expect(again.data).toContain('already applied by this approval');
    expect(applied()).toHaveLength(1);
    const web = k8s.objects.find((o) => o.metadata.name === 'web')!;
    const annotations = (web.spec as { template: { metadata: { annotations: Record<string, string> } } }).template
      .metadata.annotations;
    expect(annotations['kubectl.kubernetes.io/restartedAt']).toMatch(/^lestrade-[0-9a-f]{16}$/);
    await approved('kubectl_rollout_restart', args, 'inv-2/1:c1');
    expect(applied()).toHaveLength(2);
  });

  it('scales once: a set, not an increment', async () => {
    await start();
    const args = { kind: 'deployment', namespace: 'shop', name: 'web', replicas: 5 };
    const first = await approved('kubectl_scale', args);
    expect(first.data).toContain('spec.replicas: 3 → 5');
    await approved('kubectl_scale', args, 'inv-1/1:c1', '2026-12-07T10:00:00Z');
    expect(applied()).toHaveLength(1);
    expect(k8s.objects.find((o) => o.metadata.name === 'web')!.spec).toMatchObject({ replicas: 5 });
  });

  it("rolls back to the earlier revision's template, once", async () => {
    await start();
    await approved('kubectl_rollout_undo', { namespace: 'shop', name: 'web' });
    await approved('kubectl_rollout_undo', { namespace: 'shop', name: 'web' }, 'inv-1/1:c1', '2026-12-07T10:00:00Z');
    expect(applied()).toHaveLength(1);
    expect(applied()[0]!.contentType).toContain('json-patch');
    expect(k8s.objects.find((o) => o.metadata.name === 'web')!.spec).toMatchObject({ template: template('web:1') });
  });

  it('deletes a pod once; run again it leaves alone the replacement created since', async () => {
    await start();
    await approved('kubectl_delete_pod', { namespace: 'shop', name: 'web-2-abc' });
    expect(applied().map((w) => [w.method, w.path])).toEqual([['DELETE', '/api/v1/namespaces/shop/pods/web-2-abc']]);
    const gone = await approved(
      'kubectl_delete_pod',
      { namespace: 'shop', name: 'web-2-abc' },
      'inv-1/1:c1',
      '2026-12-07T11:00:00Z',
    );
    expect(gone.data).toContain('the pod is gone already');
    k8s.objects.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-2-abc', namespace: 'shop', creationTimestamp: '2026-12-07T11:00:05Z' },
    });
    await approved(
      'kubectl_delete_pod',
      { namespace: 'shop', name: 'web-2-abc' },
      'inv-1/1:c1',
      '2026-12-07T11:00:00Z',
    );
    expect(applied()).toHaveLength(1);
  });

  it('refuses to run a call that was not approved as it is', async () => {
    await start();
    const text = JSON.stringify({ kind: 'deployment', namespace: 'shop', name: 'web', replicas: 5 });
    const r = await exec.execute(
      { id: 'c1', name: 'kubectl_scale', arguments: text },
      {
        approvedCallKey: callKey(
          'kubectl_scale',
          JSON.stringify({ kind: 'deployment', namespace: 'shop', name: 'web', replicas: 4 }),
        ),
      },
    );
    expect(r.status).toBe('approval_required');
    expect(applied()).toEqual([]);
  });
});
