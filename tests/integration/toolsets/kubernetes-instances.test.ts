/**
 * The shipped kubernetes toolset over two clusters: one kubeconfig with two contexts, each on its own Kubernetes API
 * double, as `toolsets.kubernetes.instances`. The real kubectl runs the YAML toolset's commands unchanged; each
 * instance's KUBECONFIG view sets its context, so an alert labelled cluster=a lists a's pods and reaches only a's
 * API server, a call to b is refused before kubectl runs, and crossInstance lets it through.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../../../src/tools/tool-executor.js';
import { resolveToolsets } from '../../../src/tools/toolset-registry.js';
import { loadYamlToolset } from '../../../src/tools/yaml-toolset.js';
import { KubernetesSettingsSchema } from '../../../toolsets/kubernetes/config.js';
import { kubernetesOverInstances } from '../../../toolsets/kubernetes/index.js';
import { BUILTIN_YAML_DIR, toolsets as toolsetRegistry, yamlToolsets } from '../../../toolsets/index.js';
import { kubeconfigView } from '../../../toolsets/kubernetes/kubeconfig-view.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { toOpenAiTool } from '../../../src/loop/tool-specs.js';
import { startKubernetesApiDouble, type KubernetesApiDouble } from '../../helpers/doubles/kubernetes-api-double.js';
import { requireBinary } from '../../helpers/require-binary.js';

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'prod', labels: { app: 'api' } },
  status: { phase: 'Running' },
});

let a: KubernetesApiDouble;
let b: KubernetesApiDouble;
let dir: string;
let kubeconfig: string;
const saved = { HOME: process.env.HOME, KUBECONFIG: process.env.KUBECONFIG };

beforeAll(async () => {
  requireBinary('kubectl');
  [a, b] = await Promise.all([
    startKubernetesApiDouble([pod('api-in-a')]),
    startKubernetesApiDouble([pod('api-in-b')]),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'lestrade-kube-instances-'));
  kubeconfig = join(dir, 'kubeconfig');
  // Two contexts, the current one neither instance's: only the views choose.
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{ name: ca, cluster: { server: "${a.url}" } }, { name: cb, cluster: { server: "${b.url}" } }]`,
      'users: [{ name: u, user: {} }]',
      'contexts: [{ name: ctx-a, context: { cluster: ca, user: u } }, { name: ctx-b, context: { cluster: cb, user: u } }]',
      'current-context: ctx-b',
    ].join('\n'),
  );
  process.env.HOME = dir;
  process.env.KUBECONFIG = join(dir, 'no-such-kubeconfig');
}, 30_000);
afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await Promise.all([a?.stop(), b?.stop()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function kubernetes(extra: Record<string, unknown> = {}) {
  const settings = KubernetesSettingsSchema.parse({
    instances: [
      { name: 'a', context: 'ctx-a', kubeconfig },
      { name: 'b', context: 'ctx-b', kubeconfig, description: 'staging' },
    ],
    ...extra,
  });
  const loaded = loadYamlToolset(join(BUILTIN_YAML_DIR, 'kubernetes.yaml'));
  const ts = kubernetesOverInstances(loaded, settings, process.env);
  const resolved = await resolveToolsets([ts], {}, process.env);
  return { ts, resolved, exec: new ToolExecutor({ tools: resolved.tools }) };
}

const getPods = (instance?: string) => ({
  id: 'c',
  name: 'kubectl_get',
  arguments: JSON.stringify({ kind: 'pods', namespace: 'prod', ...(instance ? { instance } : {}) }),
});
const alertFrom = (cluster: string) => ({ scope: { labels: { cluster, namespace: 'prod' } } });

describe('the kubernetes toolset over two kubeconfig contexts', () => {
  it('is one toolset, enabled once kubectl reaches each context', async () => {
    const { ts, resolved } = await kubernetes();
    expect(resolved.statuses).toEqual([expect.objectContaining({ name: 'kubernetes', state: 'enabled' })]);
    expect(ts.tools.find((t) => t.name === 'kubectl_get')!.params.shape).toHaveProperty('instance');
  }, 30_000);

  it("lists the alert's own cluster's pods through its context, reaching only its API server", async () => {
    const { exec } = await kubernetes();
    const before = { a: a.requests.length, b: b.requests.length };
    const r = await exec.execute(getPods(), alertFrom('a'));
    expect(r).toMatchObject({ status: 'success', instance: 'a' });
    expect(r.data).toContain('api-in-a');
    expect(r.data).not.toContain('api-in-b');
    expect(a.requests.length).toBeGreaterThan(before.a);
    expect(b.requests.length).toBe(before.b);
    const own = await exec.execute(getPods('b'), alertFrom('b'));
    expect(own).toMatchObject({ status: 'success', instance: 'b' });
    expect(own.data).toContain('api-in-b');
  }, 30_000);

  it('refuses the other cluster before kubectl runs; crossInstance lets it', async () => {
    const { exec } = await kubernetes();
    const before = b.requests.length;
    const r = await exec.execute(getPods('b'), alertFrom('a'));
    expect(r.status).toBe('error');
    expect(r.error).toMatch(/^refused: instance b is not this issue's/);
    expect(r.error).toContain('toolsets.kubernetes.crossInstance');
    expect(b.requests.length).toBe(before);
    const open = await kubernetes({ crossInstance: true });
    const crossed = await open.exec.execute(getPods('b'), alertFrom('a'));
    expect(crossed).toMatchObject({ status: 'success', instance: 'b' });
    expect(crossed.data).toContain('api-in-b');
  }, 30_000);

  it("views the kubeconfig without copying it: a file holding only the context, before the instance's kubeconfig", () => {
    const list = kubeconfigView(dir, { name: 'a', context: 'ctx-a', kubeconfig }, process.env);
    const [file, base, ...more] = list.split(delimiter);
    expect(JSON.parse(readFileSync(file!, 'utf8'))).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'ctx-a',
    });
    expect([base, more]).toEqual([kubeconfig, []]);
    // Without a kubeconfig of its own: KUBECONFIG's.
    const fallback = kubeconfigView(dir, { name: 'c', context: 'ctx-a' }, { KUBECONFIG: '/etc/k/config' });
    expect(fallback.split(delimiter)[1]).toBe('/etc/k/config');
  });

  it('comes from toolsets.kubernetes in the config file, the shipped YAML file loaded once per instance', () => {
    const configPath = join(dir, 'lestrade.yaml');
    writeFileSync(
      configPath,
      `toolsets:\n  kubernetes:\n    instances:\n      - { name: a, context: ctx-a, kubeconfig: "${kubeconfig}" }\n` +
        `      - { name: b, context: ctx-b, kubeconfig: "${kubeconfig}" }\n`,
    );
    const config = loadConfig({}, configPath, [], [], toolsetRegistry);
    const k8s = yamlToolsets(config, {}).toolsets.find((t) => t.name === 'kubernetes')!;
    const get = k8s.tools.find((t) => t.name === 'kubectl_get')!;
    expect((toOpenAiTool(get) as { function: { parameters: unknown } }).function.parameters).toMatchObject({
      properties: { instance: { enum: ['a', 'b'] } },
    });
    const plain = yamlToolsets(loadConfig({}, undefined, [], [], toolsetRegistry), {}).toolsets.find(
      (t) => t.name === 'kubernetes',
    )!;
    expect(plain.tools.find((t) => t.name === 'kubectl_get')!.params.shape).not.toHaveProperty('instance');
  });
});
