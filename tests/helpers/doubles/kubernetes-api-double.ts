import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSigned } from '../self-signed.js';

/**
 * A Kubernetes API server double on 127.0.0.1, just enough for the real kubectl to read workloads:
 * /version, legacy discovery (/api, /apis, /api/v1, /apis/apps/v1: kubectl falls back to it when the
 * answer is not an aggregated discovery document), GET of one object, LIST with an equality
 * labelSelector or a metadata.name fieldSelector (a watch is answered as a LIST, which kubectl's
 * `rollout status --watch=false` reads once).
 * Objects are served as given (fixtures of real `kubectl get -o json` shapes); there is no cluster here.
 */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> } & Record<string, unknown>;
  [key: string]: unknown;
}

export interface KubernetesApiDouble {
  url: string;
  /** With tls: the server's self-signed certificate (PEM), which the kubeconfig trusts; kubectl sends tokens only over TLS. */
  caPem?: string;
  /** A kubeconfig pointing kubectl at the double (no credentials), and a cache folder of its own. */
  kubeconfig: string;
  /** Environment for kubectl: KUBECONFIG and HOME (so the discovery cache is the test's own). */
  env: NodeJS.ProcessEnv;
  /** Every request, with the Authorization header it carried (the identity kubectl used), if any. */
  requests: { method: string; path: string; query: string; authorization?: string }[];
  stop(): Promise<void>;
}

/** Resource name (plural) of each kind served, with its group version and short names. */
const RESOURCES: Record<string, { plural: string; groupVersion: string; short: string[] }> = {
  Pod: { plural: 'pods', groupVersion: 'v1', short: ['po'] },
  Event: { plural: 'events', groupVersion: 'v1', short: ['ev'] },
  Deployment: { plural: 'deployments', groupVersion: 'apps/v1', short: ['deploy'] },
  ReplicaSet: { plural: 'replicasets', groupVersion: 'apps/v1', short: ['rs'] },
  StatefulSet: { plural: 'statefulsets', groupVersion: 'apps/v1', short: ['sts'] },
  DaemonSet: { plural: 'daemonsets', groupVersion: 'apps/v1', short: ['ds'] },
  ControllerRevision: { plural: 'controllerrevisions', groupVersion: 'apps/v1', short: [] },
};

export async function startKubernetesApiDouble(
  objects: KubeObject[],
  opts: { tls?: boolean } = {},
): Promise<KubernetesApiDouble> {
  const requests: KubernetesApiDouble['requests'] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://k8s');
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search,
      ...(req.headers.authorization !== undefined && { authorization: req.headers.authorization }),
    });
    const body = req.method === 'GET' ? answer(url, objects) : status(405, 'MethodNotAllowed', 'read-only double');
    res.writeHead((body.code as number | undefined) ?? 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const home = mkdtempSync(join(tmpdir(), 'k8s-double-'));
  const tls = opts.tls ? selfSigned(home) : undefined;
  const server: Server = tls ? createTlsServer(tls, handler) : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  const kubeconfig = join(home, 'kubeconfig');
  const ca = tls ? `, certificate-authority-data: "${Buffer.from(tls.cert).toString('base64')}"` : '';
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{ name: double, cluster: { server: "${url}"${ca} } }]`,
      'users: [{ name: double, user: {} }]',
      'contexts: [{ name: double, context: { cluster: double, user: double } }]',
      'current-context: double',
    ].join('\n'),
  );
  return {
    url,
    ...(tls && { caPem: tls.cert }),
    kubeconfig,
    env: { PATH: process.env.PATH, HOME: home, KUBECONFIG: kubeconfig },
    requests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function answer(url: URL, objects: KubeObject[]): Record<string, unknown> {
  if (url.pathname === '/version')
    return { major: '1', minor: '32', gitVersion: 'v1.32.0-double', platform: 'linux/amd64' };
  const discovery = discoveryDoc(url.pathname);
  if (discovery) return discovery;
  // kubectl asks whether the namespace exists when an object is not found: the fixtures' namespaces do.
  const ns = /^\/api\/v1\/namespaces\/([^/]+)$/.exec(url.pathname)?.[1];
  if (ns !== undefined) {
    return objects.some((o) => o.metadata.namespace === ns)
      ? { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns }, status: { phase: 'Active' } }
      : status(404, 'NotFound', `namespaces "${ns}" not found`, { name: ns, kind: 'namespaces' });
  }
  const m = /^\/(?:api\/v1|apis\/([a-z.]+\/v1))(?:\/namespaces\/([^/]+))?\/([a-z]+)(?:\/([^/]+))?$/.exec(url.pathname);
  if (!m) return status(404, 'NotFound', 'the server could not find the requested resource');
  const [, group, namespace, plural, name] = m;
  const groupVersion = group ?? 'v1';
  const kind = Object.keys(RESOURCES).find(
    (k) => RESOURCES[k]!.plural === plural && RESOURCES[k]!.groupVersion === groupVersion,
  );
  if (!kind) return status(404, 'NotFound', 'the server could not find the requested resource');
  const matching = objects.filter(
    (o) => o.kind === kind && (namespace === undefined || o.metadata.namespace === namespace),
  );
  if (name !== undefined) {
    const found = matching.find((o) => o.metadata.name === name);
    return (
      found ??
      status(404, 'NotFound', `${plural}.${groupVersion.split('/')[0]} "${name}" not found`, { name, kind: plural })
    );
  }
  const selector = url.searchParams.get('labelSelector');
  const byName = /^metadata\.name=(.+)$/.exec(url.searchParams.get('fieldSelector') ?? '')?.[1];
  const items = matching.filter(
    (o) => selects(selector, o.metadata.labels ?? {}) && (byName === undefined || o.metadata.name === byName),
  );
  return { apiVersion: groupVersion, kind: `${kind}List`, metadata: { resourceVersion: '1' }, items };
}

/** Equality selectors only (`a=1,b=2`, `a==1`, `a!=1`): what kubectl sends for a matchLabels selector. */
function selects(selector: string | null, labels: Record<string, string>): boolean {
  if (!selector) return true;
  return selector.split(',').every((term) => {
    const m = /^([^!=]+)(==|=|!=)(.*)$/.exec(term.trim());
    if (!m) return false;
    return m[2] === '!=' ? labels[m[1]!] !== m[3] : labels[m[1]!] === m[3];
  });
}

function discoveryDoc(path: string): Record<string, unknown> | undefined {
  if (path === '/api') return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] };
  if (path === '/apis') {
    const gv = { groupVersion: 'apps/v1', version: 'v1' };
    return { kind: 'APIGroupList', apiVersion: 'v1', groups: [{ name: 'apps', versions: [gv], preferredVersion: gv }] };
  }
  const groupVersion = ({ '/api/v1': 'v1', '/apis/apps/v1': 'apps/v1' } as Record<string, string>)[path];
  if (!groupVersion) return undefined;
  const resources = Object.entries(RESOURCES)
    .filter(([, r]) => r.groupVersion === groupVersion)
    .map(([kind, r]) => ({
      name: r.plural,
      singularName: kind.toLowerCase(),
      namespaced: true,
      kind,
      verbs: ['get', 'list'],
      shortNames: r.short,
    }));
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}

function status(code: number, reason: string, message: string, details?: unknown): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code };
}
