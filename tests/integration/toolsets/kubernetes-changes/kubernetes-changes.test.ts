/**
 * "What changed" in a Deployment, with the real kubectl against a Kubernetes API double
 * (tests/helpers/doubles/kubernetes-api-double.ts): there is no cluster here, so the double serves a
 * rollout-history fixture (a Deployment and its ReplicaSets, revisions 5 to 7, plus another
 * deployment's ReplicaSet carrying the same label) through discovery and the apps/v1 API.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { resolveToolsets } from '../../../../src/tools/toolset-registry.js';
import { loadYamlToolset } from '../../../../src/tools/yaml-toolset.js';
import { BUILTIN_YAML_DIR } from '../../../../toolsets/index.js';
import { createKubernetesChangesToolset } from '../../../../toolsets/kubernetes-changes/index.js';
import {
  startKubernetesApiDouble,
  type KubeObject,
  type KubernetesApiDouble,
} from '../../../helpers/doubles/kubernetes-api-double.js';
import { requireBinary } from '../../../helpers/require-binary.js';

const fixture = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../../fixtures/kubernetes/rollout-api.json'), 'utf8'),
) as KubeObject[];

let k8s: KubernetesApiDouble;
let exec: ToolExecutor;
const saved = { KUBECONFIG: process.env.KUBECONFIG, HOME: process.env.HOME };
beforeAll(async () => {
  requireBinary('kubectl');
  k8s = await startKubernetesApiDouble(fixture);
  // The YAML tools run kubectl with the process's environment.
  process.env.KUBECONFIG = k8s.kubeconfig;
  process.env.HOME = k8s.env.HOME;
  const yaml = loadYamlToolset(join(BUILTIN_YAML_DIR, 'kubernetes.yaml'));
  exec = new ToolExecutor({ tools: [...createKubernetesChangesToolset({ env: k8s.env }).tools, ...yaml.tools] });
});
afterAll(async () => {
  process.env.KUBECONFIG = saved.KUBECONFIG;
  process.env.HOME = saved.HOME;
  await k8s?.stop();
});
const call = (name: string, args: Record<string, unknown>) =>
  exec.execute({ id: 'c', name, arguments: JSON.stringify(args) });

describe('kubernetes_rollout_diff', () => {
  it("lists the deployment's own revisions newest first, each with what changed since the one before", async () => {
    const r = await call('kubernetes_rollout_diff', { namespace: 'prod', name: 'api' });
    expect(r.status).toBe('success');
    expect(r.data!.split('\n')).toEqual([
      'deployment prod/api: 3 ReplicaSets kept, newest revision first',
      'revision 7 (current): replicaset api-7c9f4d6b8, created 2026-03-01T09:58:03Z, 1/3 ready, change-cause "release 1.5.0 (PR #912)"',
      '  since revision 6:',
      '    container api: image registry.example.com/api:1.4.2 → registry.example.com/api:1.5.0',
      '    container api: env added FEATURE_CHECKOUT_V2; removed LEGACY_MODE; changed DB_POOL_SIZE',
      '    container api: limits.memory 512Mi → 256Mi',
      '    container proxy: added (image envoyproxy/envoy:v1.30.1)',
      'revision 6: replicaset api-6b7d9f8c5, created 2026-02-28T09:15:40Z, 0/0 ready, change-cause "bump to 1.4.2"',
      '  since revision 5:',
      '    container api: image registry.example.com/api:1.4.1 → registry.example.com/api:1.4.2',
      '    pod spec: changed nodeSelector',
      'revision 5: replicaset api-5d8f7c9b4, created 2026-02-27T14:02:11Z, 0/0 ready',
      '  the oldest revision kept: nothing to compare it with',
    ]);
  });

  it('never shows an env value, only that it changed', async () => {
    const r = await call('kubernetes_rollout_diff', { namespace: 'prod', name: 'api' });
    // DB_POOL_SIZE went from 20 to 5; FEATURE_CHECKOUT_V2 is "true".
    expect(r.data).not.toMatch(/\b20\b|→ 5\b|true/);
  });

  it('shows the newest revisions only when asked for fewer, and says how many it left out', async () => {
    const r = await call('kubernetes_rollout_diff', { namespace: 'prod', name: 'api', revisions: 1 });
    expect(r.data).toContain('revision 7 (current)');
    expect(r.data).not.toMatch(/^revision 6:/m);
    expect(r.data!.split('\n').at(-1)).toBe('(2 older revisions not shown)');
  });

  it("gives kubectl's reason for a deployment that does not exist, and refuses names that are not names", async () => {
    const missing = await call('kubernetes_rollout_diff', { namespace: 'prod', name: 'nope' });
    expect(missing).toMatchObject({ status: 'error' });
    expect(missing.error).toMatch(/"nope" not found/);
    const bad = await call('kubernetes_rollout_diff', { namespace: 'prod', name: '--all' });
    expect(bad.status).toBe('error');
  });

  it("tells the model to line revisions up with the issue's start", () => {
    expect(createKubernetesChangesToolset().instructions).toMatch(
      /kubernetes_rollout_diff[\s\S]*lines up with the start/,
    );
  });

  it('is enabled where kubectl reaches the cluster', async () => {
    const resolved = await resolveToolsets([createKubernetesChangesToolset({ env: k8s.env })], {}, {});
    expect(resolved.statuses[0]).toMatchObject({ name: 'kubernetes_changes', state: 'enabled' });
  });
});

describe('the YAML rollout tools with the real kubectl', () => {
  it('kubectl_rollout_history lists the revisions and their change causes', async () => {
    const r = await call('kubectl_rollout_history', { kind: 'deployment', name: 'api', namespace: 'prod' });
    expect(r.status).toBe('success');
    expect(r.data).toMatch(/REVISION\s+CHANGE-CAUSE\n5\s+<none>\n6\s+bump to 1\.4\.2\n7\s+release 1\.5\.0 \(PR #912\)/);
  });

  it('kubectl_rollout_history with a revision gives its pod template as YAML', async () => {
    const r = await call('kubectl_rollout_history', {
      kind: 'deployment',
      name: 'api',
      namespace: 'prod',
      revision: 6,
    });
    expect(r.data).toContain('image: registry.example.com/api:1.4.2');
  });

  it('kubectl_rollout_status reads the status once, without waiting', async () => {
    const started = Date.now();
    const r = await call('kubectl_rollout_status', { kind: 'deployment', name: 'api', namespace: 'prod' });
    expect(r.data).toContain('Waiting for deployment "api" rollout to finish: 1 of 3 updated replicas are available');
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
