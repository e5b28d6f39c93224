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
 * With `writable`, it also takes what kubectl sends to change things (PATCH as a JSON merge patch, whatever
 * the patch type, which is all our patches need; DELETE), each honouring `dryRun=All` as the API server does
 * (the answer without storing), and records every write so a test can count the applied ones; `refuse` answers
 * a write with a Status of its choosing (RBAC's 403, an admission webhook's 400) before it is applied.
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
  /** With `writable`: every PATCH and DELETE, dry runs included (`dryRun`), with the body sent. */
  writes: KubeWrite[];
  /** The objects as they are now (writes applied). */
  objects: KubeObject[];
  /**
   * Sets a workload's status as its controller would after the latest write: rolled out (every replica updated and
   * available at the current generation), still rolling (one replica updated), or stuck (a Deployment's
   * ProgressDeadlineExceeded). What `kubectl rollout status` and the verifier read.
   */
  setRollout(
    kind: 'Deployment' | 'StatefulSet' | 'DaemonSet',
    namespace: string,
    name: string,
    state: RolloutFixture,
  ): void;
  stop(): Promise<void>;
}

export type RolloutFixture = 'rolled_out' | 'rolling' | 'stuck';

export interface KubeWrite {
  method: 'PATCH' | 'DELETE';
  path: string;
  dryRun: boolean;
  contentType?: string;
  body: unknown;
}

export interface KubeDoubleOptions {
  tls?: boolean;
  writable?: boolean;
  /** A Status to answer a write with instead of applying it (code, reason, message), or undefined to apply it. */
  refuse?: (write: KubeWrite) => { code: number; reason: string; message: string } | undefined;
  /** Applies the write, then never answers it: the client (a worker about to be killed) waits for ever. */
  hold?: (write: KubeWrite) => boolean;
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
  opts: KubeDoubleOptions = {},
): Promise<KubernetesApiDouble> {
  const requests: KubernetesApiDouble['requests'] = [];
  const writes: KubeWrite[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://k8s');
    requests.push({
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.search,
      ...(req.headers.authorization !== undefined && { authorization: req.headers.authorization }),
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: Record<string, unknown>;
      if (req.method === 'GET') body = answer(url, objects);
      else if (opts.writable && (req.method === 'PATCH' || req.method === 'DELETE')) {
        const text = Buffer.concat(chunks).toString('utf8');
        const sent = text ? (JSON.parse(text) as unknown) : undefined;
        // A PATCH says dryRun in its query; kubectl's DELETE says it in the DeleteOptions it sends as the body.
        const inBody = (sent as { dryRun?: string[] } | undefined)?.dryRun?.includes('All') === true;
        const write: KubeWrite = {
          method: req.method,
          path: url.pathname,
          dryRun: url.searchParams.get('dryRun') === 'All' || inBody,
          ...(req.headers['content-type'] !== undefined && { contentType: req.headers['content-type'] }),
          body: sent,
        };
        writes.push(write);
        const refused = opts.refuse?.(write);
        body = refused ? status(refused.code, refused.reason, refused.message) : applyWrite(write, objects);
        if (!refused && opts.hold?.(write)) return;
      } else body = status(405, 'MethodNotAllowed', 'read-only double');
      res.writeHead((body.code as number | undefined) ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
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
    writes,
    objects,
    setRollout: (kind, namespace, name, state) => setRollout(objects, kind, namespace, name, state),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The object a path names, its index in `objects`, or a Status when there is none. */
function locate(
  path: string,
  objects: KubeObject[],
): { index: number; status?: never } | { index?: never; status: Record<string, unknown> } {
  const m = /^\/(?:api\/v1|apis\/([a-z.]+\/v1))\/namespaces\/([^/]+)\/([a-z]+)\/([^/]+)$/.exec(path);
  if (!m) return { status: status(404, 'NotFound', 'the server could not find the requested resource') };
  const [, group, namespace, plural, name] = m;
  const groupVersion = group ?? 'v1';
  const kind = Object.keys(RESOURCES).find(
    (k) => RESOURCES[k]!.plural === plural && RESOURCES[k]!.groupVersion === groupVersion,
  );
  const index = objects.findIndex(
    (o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name,
  );
  return index >= 0
    ? { index }
    : { status: status(404, 'NotFound', `${plural} "${name}" not found`, { name, kind: plural }) };
}

interface JsonPatchOp {
  op: string;
  path: string;
  value?: unknown;
}

/** RFC 6902's add and replace (what our patches send), on a copy; `~1` is "/" and `~0` is "~" in a path. */
function jsonPatch(target: unknown, ops: JsonPatchOp[]): unknown {
  const doc = structuredClone(target) as Record<string, unknown>;
  for (const { op, path, value } of ops) {
    if (op !== 'add' && op !== 'replace') throw new Error(`the double does not apply JSON patch op ${op}`);
    const parts = path
      .split('/')
      .slice(1)
      .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = parts.pop()!;
    let at: Record<string, unknown> = doc;
    for (const p of parts) at = at[p] as Record<string, unknown>;
    at[last] = value;
  }
  return doc;
}

/** RFC 7396: objects merge, null deletes, anything else replaces. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch as Record<string, unknown>)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function setRollout(objects: KubeObject[], kind: string, namespace: string, name: string, state: RolloutFixture): void {
  const obj = objects.find((o) => o.kind === kind && o.metadata.namespace === namespace && o.metadata.name === name);
  if (!obj) throw new Error(`no ${kind} ${namespace}/${name} in the double`);
  const generation = Number(obj.metadata.generation ?? 1);
  obj.metadata.generation = generation;
  const want = Number((obj.spec as { replicas?: number } | undefined)?.replicas ?? 1);
  const updated = state === 'rolled_out' ? want : Math.min(1, want);
  const conditions =
    state === 'stuck'
      ? [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }]
      : [
          {
            type: 'Progressing',
            status: 'True',
            reason: state === 'rolled_out' ? 'NewReplicaSetAvailable' : 'ReplicaSetUpdated',
          },
        ];
  const revision = (r: string) => `${name}-${r}`;
  obj.status = {
    observedGeneration: generation,
    replicas: want,
    updatedReplicas: updated,
    readyReplicas: updated,
    availableReplicas: updated,
    ...(kind === 'Deployment' && { conditions }),
    ...(kind === 'StatefulSet' && {
      currentRevision: revision(state === 'rolled_out' ? 'new' : 'old'),
      updateRevision: revision('new'),
    }),
    ...(kind === 'DaemonSet' && {
      desiredNumberScheduled: want,
      updatedNumberScheduled: updated,
      numberAvailable: updated,
    }),
  };
}

/** A PATCH merged in (a changed pod template bumps the generation, as a Deployment's does), or a DELETE. */
function applyWrite(write: KubeWrite, objects: KubeObject[]): Record<string, unknown> {
  const found = locate(write.path, objects);
  if (found.status) return found.status;
  const current = objects[found.index]!;
  if (write.method === 'DELETE') {
    if (!write.dryRun) objects.splice(found.index, 1);
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: current.metadata.name },
    };
  }
  const next = (
    write.contentType?.includes('json-patch')
      ? jsonPatch(current, write.body as JsonPatchOp[])
      : mergePatch(current, write.body)
  ) as KubeObject;
  const changed = JSON.stringify(next) !== JSON.stringify(current);
  const version = Number(current.metadata.resourceVersion ?? 1);
  const templateChanged =
    JSON.stringify((next.spec as Record<string, unknown> | undefined)?.template) !==
    JSON.stringify((current.spec as Record<string, unknown> | undefined)?.template);
  const generation = Number(current.metadata.generation ?? 1);
  next.metadata = {
    ...next.metadata,
    resourceVersion: String(changed ? version + 1 : version),
    generation: templateChanged || changed ? generation + 1 : generation,
  };
  if (!write.dryRun && changed) objects[found.index] = next;
  return next;
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
      verbs: ['get', 'list', 'patch', 'delete'],
      shortNames: r.short,
    }));
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion, resources };
}

function status(code: number, reason: string, message: string, details?: unknown): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details, code };
}
