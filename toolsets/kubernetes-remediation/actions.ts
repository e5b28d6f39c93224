import { z } from 'zod';
import type { ToolOutput } from '../../src/tools/types.js';
import type { ActionIo, Plan, RemediationAction } from './remediation-tool.js';
import { MARKER_ANNOTATION, RESTARTED_AT, type KubeObj, type Target } from './workload.js';

const name = z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'a Kubernetes name (lower-case, digits, - and .)');
const namespace = name.describe('namespace');
const markedBy = (obj: KubeObj, marker: string) => obj.metadata.annotations?.[MARKER_ANNOTATION] === marker;
const marking = (marker: string) => ({ annotations: { [MARKER_ANNOTATION]: marker } });

/** kubectl_rollout_restart: a rolling restart, as `kubectl rollout restart` does, with a marker of this approval. */
export const rolloutRestart: RemediationAction = {
  name: 'kubectl_rollout_restart',
  description: 'Restart a deployment, statefulset or daemonset: its pods are replaced one by one (a rolling restart).',
  params: z.strictObject({
    kind: z.enum(['deployment', 'statefulset', 'daemonset']).describe('the workload kind'),
    namespace,
    name: name.describe('the workload name'),
  }),
  target: (p) => ({ kind: p.kind as Target['kind'], namespace: p.namespace as string, name: p.name as string }),
  plan: async (p, _obj, marker): Promise<Plan> => ({
    summary: `Restart ${String(p.kind)}/${String(p.name)} in ${String(p.namespace)} (new pods replace the old ones)`,
    // restartedAt carries the approval's marker rather than a time: a second run of this approval sets the same value.
    write: {
      type: 'merge',
      patch: {
        metadata: marking(marker),
        spec: { template: { metadata: { annotations: { [RESTARTED_AT]: marker } } } },
      },
    },
  }),
  applied: (_p, obj, marker) =>
    markedBy(obj, marker) ||
    (obj.spec?.template as KubeObj | undefined)?.metadata?.annotations?.[RESTARTED_AT] === marker,
};

/** kubectl_scale: sets (never adds to) the replicas, within maxReplicas and not to 0 unless allowed. */
export const scale: RemediationAction = {
  name: 'kubectl_scale',
  description: 'Set the number of replicas of a deployment or statefulset.',
  params: z.strictObject({
    kind: z.enum(['deployment', 'statefulset']).describe('the workload kind'),
    namespace,
    name: name.describe('the workload name'),
    replicas: z.int().min(0).describe('the number of replicas to set (not to add)'),
  }),
  target: (p) => ({ kind: p.kind as Target['kind'], namespace: p.namespace as string, name: p.name as string }),
  plan: async (p, obj, marker, { settings }): Promise<Plan> => {
    const replicas = p.replicas as number;
    if (replicas > settings.maxReplicas)
      return {
        refused: `replicas ${replicas} is over toolsets.kubernetes_remediation.maxReplicas (${settings.maxReplicas})`,
      };
    if (replicas === 0 && !settings.allowScaleToZero)
      return {
        refused: 'scaling to 0 stops the workload: set toolsets.kubernetes_remediation.allowScaleToZero to allow it',
      };
    const from = typeof obj.spec?.replicas === 'number' ? obj.spec.replicas : 1;
    return {
      summary: `Scale ${String(p.kind)}/${String(p.name)} in ${String(p.namespace)} from ${from} to ${replicas} replicas`,
      write: { type: 'merge', patch: { metadata: marking(marker), spec: { replicas } } },
    };
  },
  // A set: once the replicas are what was approved, there is nothing to write.
  applied: (p, obj, marker) => markedBy(obj, marker) || obj.spec?.replicas === p.replicas,
};

interface ReplicaSet extends KubeObj {
  metadata: KubeObj['metadata'] & { ownerReferences?: { kind: string; name: string }[] };
  spec: { template: KubeObj & { spec?: { containers?: { name: string; image: string }[] } } };
}

const REVISION = 'deployment.kubernetes.io/revision';
const revisionOf = (o: KubeObj) => Number(o.metadata.annotations?.[REVISION] ?? 0);

/** The deployment's ReplicaSets by revision, read with the deployment's selector. */
async function revisions(
  obj: KubeObj,
  t: Target,
  { kubectl, signal }: ActionIo,
): Promise<Map<number, ReplicaSet> | string> {
  const labels = (obj.spec?.selector as { matchLabels?: Record<string, string> } | undefined)?.matchLabels ?? {};
  const selector = Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  const got = await kubectl.run(
    ['get', 'replicasets', '--namespace', t.namespace, ...(selector ? ['--selector', selector] : [])],
    signal,
  );
  if (!got.ok) return `could not read the ReplicaSets of deployment/${t.name}: ${got.error}`;
  const items = ((got.json as { items?: ReplicaSet[] }).items ?? []).filter((rs) =>
    rs.metadata.ownerReferences?.some((o) => o.kind === 'Deployment' && o.name === t.name),
  );
  return new Map(items.map((rs) => [revisionOf(rs), rs]));
}

/** kubectl_rollout_undo: the deployment's pod template back to an earlier revision's, as `kubectl rollout undo` does. */
export const rolloutUndo: RemediationAction = {
  name: 'kubectl_rollout_undo',
  description:
    "Roll a deployment back to its previous revision (or the revision named): its pod template becomes that revision's.",
  params: z.strictObject({
    namespace,
    name: name.describe('the deployment name'),
    toRevision: z.int().min(1).optional().describe('the revision to go back to; default the one before the current'),
  }),
  target: (p) => ({ kind: 'deployment', namespace: p.namespace as string, name: p.name as string }),
  plan: async (p, obj, marker, io): Promise<Plan> => {
    const t = rolloutUndo.target(p);
    const byRevision = await revisions(obj, t, io);
    if (typeof byRevision === 'string') return { refused: byRevision };
    const current = revisionOf(obj);
    const earlier = [...byRevision.keys()].filter((r) => r < current).sort((a, b) => b - a);
    const to = (p.toRevision as number | undefined) ?? earlier[0];
    const rs = to === undefined ? undefined : byRevision.get(to);
    if (to === undefined || !rs)
      return {
        refused: `deployment/${t.name} has no revision ${to ?? 'before its current one'} to roll back to (revisions: ${[...byRevision.keys()].sort().join(', ') || 'none'})`,
      };
    if (to === current) return { refused: `deployment/${t.name} is at revision ${current} already` };
    const template = structuredClone(rs.spec.template);
    delete template.metadata.labels?.['pod-template-hash'];
    const images = (template.spec?.containers ?? []).map((c) => c.image).join(', ');
    return {
      summary: `Roll back deployment/${t.name} in ${t.namespace} from revision ${current} to revision ${to} (${images || 'no images'})`,
      write: {
        type: 'json',
        patch: [
          { op: 'replace', path: '/spec/template', value: template },
          { op: 'add', path: `/metadata/annotations/${MARKER_ANNOTATION.replace('/', '~1')}`, value: marker },
        ],
      },
    };
  },
  applied: (_p, obj, marker) => markedBy(obj, marker),
};

/** kubectl_delete_pod: one pod by name; its controller, if any, starts a new one. */
export const deletePod: RemediationAction = {
  name: 'kubectl_delete_pod',
  description: 'Delete one pod by name (a stuck pod); its controller, if it has one, creates a replacement.',
  params: z.strictObject({ namespace, name: name.describe('the pod name') }),
  target: (p) => ({ kind: 'pod', namespace: p.namespace as string, name: p.name as string }),
  plan: async (p, obj): Promise<Plan> => {
    const owner = (obj.metadata as { ownerReferences?: { kind: string; name: string }[] }).ownerReferences?.[0];
    const after = owner
      ? `its ${owner.kind} ${owner.name} starts a new one`
      : 'it has no controller: it will not come back';
    return {
      summary: `Delete pod ${String(p.name)} in ${String(p.namespace)} (created ${obj.metadata.creationTimestamp ?? 'at an unknown time'}; ${after})`,
      write: { delete: true },
    };
  },
  // Run again after a stop: a pod of that name created since the first run began is the replacement, not the target.
  applied: (_p, obj, _marker, ctx) =>
    ctx.interruptedAt !== undefined &&
    obj.metadata.creationTimestamp !== undefined &&
    Date.parse(obj.metadata.creationTimestamp) >= Date.parse(ctx.interruptedAt),
  gone: (t): ToolOutput => ({
    status: 'success',
    data: { applied: false, target: t, note: 'the pod is gone already' },
    alreadyApplied: true,
  }),
};

export const REMEDIATION_ACTIONS = [rolloutRestart, rolloutUndo, scale, deletePod];
