import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildConfigSchema } from '../../../src/config/schema.js';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { requireBinary } from '../../helpers/require-binary.js';

/**
 * deploy/kubernetes rendered by the real `kubectl kustomize`, every object validated against the
 * Kubernetes API's OpenAPI schemas (compiled by kubernetes-models 4.5.1, Kubernetes 1.30 API; the
 * Prometheus Operator's CRDs by @kubernetes-models/prometheus-operator 4.4.4). Those schemas check
 * types, required fields and formats; they allow unknown fields (the API server's strict field
 * validation would not), so the checks below name the fields that matter.
 */
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

const ROOT = new URL('../../../', import.meta.url);

function render(path: string): K8sObject[] {
  const kubectl = requireBinary('kubectl');
  const out = execFileSync(kubectl, ['kustomize', new URL(path, ROOT).pathname], { encoding: 'utf8' });
  return parseAllDocuments(out).map((d) => d.toJS() as K8sObject);
}

async function modelOf(apiVersion: string, kind: string): Promise<new (data: unknown) => { validate(): void }> {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const pkg = group === 'monitoring.coreos.com' ? '@kubernetes-models/prometheus-operator' : 'kubernetes-models';
  const mod = (await import(`${pkg}/${group ? `${group}/` : ''}${version}`)) as Record<string, unknown>;
  const model = mod[kind];
  if (typeof model !== 'function') throw new Error(`no schema for ${apiVersion} ${kind}`);
  return model as new (data: unknown) => { validate(): void };
}

async function validateAll(objects: K8sObject[]): Promise<string[]> {
  const errors: string[] = [];
  for (const o of objects) {
    const Model = await modelOf(o.apiVersion, o.kind);
    try {
      new Model(o).validate();
    } catch (err) {
      errors.push(`${o.kind}/${o.metadata.name}: ${(err as Error).message}`);
    }
  }
  return errors;
}

const byKind = (objects: K8sObject[], kind: string, name?: string) =>
  objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));

type Container = Record<string, any>;
const podSpec = (o: K8sObject): Record<string, any> => (o as any).spec.template.spec;
const container = (o: K8sObject): Container => podSpec(o).containers[0];

describe('deploy/kubernetes', () => {
  const example = render('deploy/kubernetes/overlays/example');
  const base = render('deploy/kubernetes/base');

  it('renders objects that the Kubernetes API schemas accept (base and the example overlay)', async () => {
    expect(await validateAll(example)).toEqual([]);
    expect(await validateAll(base)).toEqual([]);
    expect(example.map((o) => o.kind).sort()).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'ConfigMap',
      'ConfigMap',
      'Deployment',
      'Deployment',
      'Namespace',
      'PodMonitor',
      'PrometheusRule',
      'Service',
      'Service',
      'ServiceAccount',
      'ServiceMonitor',
      'StatefulSet',
    ]);
  });

  it('the schema check does bite: a wrong type and a missing required field are refused', async () => {
    const deployment = structuredClone(byKind(example, 'Deployment', 'lestrade-web')[0]!);
    (deployment as any).spec.replicas = 'two';
    delete (deployment as any).spec.selector;
    const [error] = await validateAll([deployment]);
    expect(error).toMatch(/replicas must be integer|must have required property 'selector'/);
  });

  it('runs web (serve) and worker Deployments as non-root on a read-only root, both probed', () => {
    const web = byKind(example, 'Deployment', 'lestrade-web')[0]!;
    const worker = byKind(example, 'Deployment', 'lestrade-worker')[0]!;
    expect(container(web).args).toEqual(['serve']);
    expect(container(worker).args).toEqual(['worker']);
    for (const d of [web, worker]) {
      expect(podSpec(d).serviceAccountName).toBe('lestrade');
      expect(podSpec(d).securityContext.runAsNonRoot).toBe(true);
      expect(container(d).securityContext).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
    }
    expect(container(web).livenessProbe.httpGet.path).toBe('/healthz');
    // A worker serves /healthz, /readyz and /metrics on its own port (LESTRADE_WORKER_PORT), which the probes name.
    expect(container(worker).ports).toEqual([{ name: 'metrics', containerPort: 8081 }]);
    expect(container(worker).env).toContainEqual({ name: 'LESTRADE_WORKER_PORT', value: '8081' });
    expect(container(worker).livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(container(worker).startupProbe.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(container(worker).readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    // Taking a webhook needs Redis, not the model: an LLM outage keeps the receivers in the Service.
    expect(container(web).readinessProbe.httpGet.path).toBe('/readyz?scope=intake');
    // Probes come from the kubelet, not the pod's loopback: both listen everywhere, which makes serve
    // refuse to start without an API token in lestrade-secrets.
    for (const d of [web, worker]) expect(container(d).env).toContainEqual({ name: 'HOST', value: '0.0.0.0' });
  });

  it('gives both Deployments a grace period longer than the shutdown timeout, with time to hand runs back', () => {
    const timeout = buildConfigSchema([]).parse({}).queue.shutdownTimeoutSeconds;
    for (const name of ['lestrade-web', 'lestrade-worker']) {
      const grace = podSpec(byKind(example, 'Deployment', name)[0]!).terminationGracePeriodSeconds as number;
      expect(grace, name).toBeGreaterThanOrEqual(timeout + 10);
    }
  });

  it('gives the ServiceAccount read-only RBAC: get/list/watch, no Secrets, no exec', () => {
    const [role] = byKind(example, 'ClusterRole', 'lestrade-read-only');
    const rules = (role as any).rules as Array<{ resources: string[]; verbs: string[] }>;
    const verbs = new Set(rules.flatMap((r) => r.verbs));
    expect([...verbs].sort()).toEqual(['get', 'list', 'watch']);
    const resources = rules.flatMap((r) => r.resources);
    expect(resources).not.toContain('secrets');
    expect(resources).not.toContain('pods/exec');
    expect(resources).toEqual(expect.arrayContaining(['pods', 'pods/log', 'events', 'deployments', 'replicasets']));
    const [binding] = byKind(example, 'ClusterRoleBinding');
    expect((binding as any).subjects).toEqual([{ kind: 'ServiceAccount', name: 'lestrade', namespace: 'lestrade' }]);
  });

  it('reads Secrets only with the read-secrets component', () => {
    const objects = render('tests/fixtures/deploy/read-secrets-overlay');
    const [role] = byKind(objects, 'ClusterRole', 'lestrade-read-only');
    const rules = (role as any).rules as Array<{ resources: string[]; verbs: string[] }>;
    expect(rules.at(-1)).toEqual({ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] });
  });

  it('writes with the remediation component only, as an account of its own with the verbs its four tools need', async () => {
    const objects = render('tests/fixtures/deploy/remediation-overlay');
    expect(await validateAll(objects)).toEqual([]);
    const [role] = byKind(objects, 'ClusterRole', 'lestrade-remediation');
    expect((role as any).rules).toEqual([
      {
        apiGroups: ['apps'],
        resources: ['deployments', 'statefulsets', 'daemonsets'],
        verbs: ['get', 'list', 'patch'],
      },
      { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'delete'] },
    ]);
    const [binding] = byKind(objects, 'ClusterRoleBinding', 'lestrade-remediation');
    expect((binding as any).subjects).toEqual([
      { kind: 'ServiceAccount', name: 'lestrade-remediation', namespace: 'lestrade' },
    ]);
    // The read-only role gains nothing, and the pods still run as the read-only account.
    const [readOnly] = byKind(objects, 'ClusterRole', 'lestrade-read-only');
    expect(new Set(((readOnly as any).rules as Array<{ verbs: string[] }>).flatMap((r) => r.verbs))).toEqual(
      new Set(['get', 'list', 'watch']),
    );
    const worker = byKind(objects, 'Deployment', 'lestrade-worker')[0]!;
    expect((worker as any).spec.template.spec.serviceAccountName).toBe('lestrade');
    expect(container(worker).volumeMounts).toEqual(
      expect.arrayContaining([
        { name: 'remediation-token', mountPath: '/var/run/secrets/lestrade-remediation', readOnly: true },
        { name: 'remediation-kubeconfig', mountPath: '/etc/lestrade-remediation', readOnly: true },
      ]),
    );
    expect(byKind(base, 'ServiceAccount').map((a) => a.metadata.name)).toEqual(['lestrade']);
  });

  it('takes Redis from REDIS_URL: external in the base, the bundled StatefulSet with the redis component', () => {
    const envOf = (objects: K8sObject[]) =>
      (byKind(objects, 'ConfigMap').find((c) => c.metadata.name.startsWith('lestrade-env')) as any).data;
    expect(envOf(base).REDIS_URL).toBe('redis://redis.example.internal:6379');
    expect(byKind(base, 'StatefulSet')).toEqual([]);
    expect(envOf(example).REDIS_URL).toBe('redis://lestrade-redis:6379');
    const [redis] = byKind(example, 'StatefulSet');
    expect(container(redis!).args).toEqual(expect.arrayContaining(['--appendfsync', 'always']));
    expect(container(redis!).image).toMatch(/^redis:\d+\.\d+\.\d+$/);
  });

  it('scrapes the web and worker pods and ships the alerting rules of deploy/monitoring as a PrometheusRule', () => {
    const [monitor] = byKind(example, 'ServiceMonitor');
    expect((monitor as any).spec.endpoints[0]).toMatchObject({ port: 'http', path: '/metrics' });
    const [pods] = byKind(example, 'PodMonitor', 'lestrade-worker');
    expect((pods as any).spec.podMetricsEndpoints[0]).toMatchObject({ port: 'metrics', path: '/metrics' });
    const worker = byKind(example, 'Deployment', 'lestrade-worker')[0]!;
    const podLabels = (worker as any).spec.template.metadata.labels as Record<string, string>;
    expect(podLabels).toMatchObject((pods as any).spec.selector.matchLabels);
    expect((pods as any).spec.selector.matchLabels['app.kubernetes.io/component']).toBe('worker');
    const [rule] = byKind(example, 'PrometheusRule');
    const shipped = parseYaml(readFileSync(new URL('deploy/monitoring/lestrade-rules.yml', ROOT), 'utf8')) as {
      groups: unknown[];
    };
    expect((rule as any).spec.groups).toEqual(shipped.groups);
    expect(shipped.groups.length).toBeGreaterThan(0);
  });
});
