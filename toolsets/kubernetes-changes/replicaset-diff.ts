/** The parts of Kubernetes objects the diff reads (apps/v1 ReplicaSet, Deployment). */
interface Meta {
  name: string;
  uid?: string;
  namespace?: string;
  creationTimestamp?: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  ownerReferences?: { uid: string; kind: string; name: string }[];
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: unknown;
}

interface Container {
  name: string;
  image?: string;
  env?: EnvVar[];
  envFrom?: unknown[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  command?: string[];
  args?: string[];
}

interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { containers?: Container[]; initContainers?: Container[] } & Record<string, unknown>;
}

export interface ReplicaSet {
  metadata: Meta;
  spec?: { replicas?: number; template?: PodTemplate };
  status?: { replicas?: number; readyReplicas?: number };
}

export interface Deployment {
  metadata: Meta;
  spec?: { selector?: { matchLabels?: Record<string, string> } };
}

const REVISION = 'deployment.kubernetes.io/revision';
const CHANGE_CAUSE = 'kubernetes.io/change-cause';
/** Set by the Deployment controller on every ReplicaSet; a change of it is no change of ours. */
const IGNORED_LABELS = new Set(['pod-template-hash']);

/** A label selector (`a=1,b=2`) from matchLabels, for `kubectl get rs -l`; empty when there are none. */
export function matchLabelsSelector(d: Deployment): string {
  const labels = d.spec?.selector?.matchLabels ?? {};
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** The deployment's ReplicaSets (owned by its uid), newest revision first. */
export function ownedRevisions(d: Deployment, sets: ReplicaSet[]): ReplicaSet[] {
  return sets
    .filter((rs) => (rs.metadata.ownerReferences ?? []).some((o) => o.uid === d.metadata.uid))
    .sort((a, b) => revisionOf(b) - revisionOf(a));
}

export function revisionOf(rs: ReplicaSet): number {
  return Number(rs.metadata.annotations?.[REVISION] ?? 0);
}

/**
 * The changes from one pod template to the next: images, env variable names (added, removed, changed:
 * never their values, which may be secrets), resources, command and args, envFrom sources, other pod
 * spec fields and template labels and annotations (by name).
 */
export function templateChanges(before: PodTemplate, after: PodTemplate): string[] {
  const out: string[] = [];
  const spec = (t: PodTemplate) => t.spec ?? {};
  for (const kind of ['initContainers', 'containers'] as const) {
    const prefix = kind === 'initContainers' ? 'init container' : 'container';
    const was = byName(spec(before)[kind] ?? []);
    const now = byName(spec(after)[kind] ?? []);
    for (const name of union(was.keys(), now.keys())) {
      const a = was.get(name);
      const b = now.get(name);
      if (!a) out.push(`${prefix} ${name}: added (image ${b!.image ?? '?'})`);
      else if (!b) out.push(`${prefix} ${name}: removed`);
      else out.push(...containerChanges(a, b).map((c) => `${prefix} ${name}: ${c}`));
    }
  }
  const otherSpec = changedKeys(
    omit(spec(before), ['containers', 'initContainers']),
    omit(spec(after), ['containers', 'initContainers']),
  );
  if (otherSpec.length) out.push(`pod spec: changed ${otherSpec.join(', ')}`);
  const labels = changedKeys(before.metadata?.labels ?? {}, after.metadata?.labels ?? {}).filter(
    (k) => !IGNORED_LABELS.has(k),
  );
  if (labels.length) out.push(`pod labels: changed ${labels.join(', ')}`);
  const notes = changedKeys(before.metadata?.annotations ?? {}, after.metadata?.annotations ?? {});
  if (notes.length) out.push(`pod annotations: changed ${notes.join(', ')}`);
  return out;
}

function containerChanges(a: Container, b: Container): string[] {
  const out: string[] = [];
  if (a.image !== b.image) out.push(`image ${a.image ?? '?'} → ${b.image ?? '?'}`);
  const env = envChanges(a.env ?? [], b.env ?? []);
  if (env) out.push(env);
  if (!same(a.envFrom, b.envFrom)) out.push('envFrom changed');
  for (const part of ['requests', 'limits'] as const) {
    const was = a.resources?.[part] ?? {};
    const now = b.resources?.[part] ?? {};
    for (const r of union(Object.keys(was), Object.keys(now))) {
      if (was[r] !== now[r]) out.push(`${part}.${r} ${was[r] ?? 'unset'} → ${now[r] ?? 'unset'}`);
    }
  }
  if (!same(a.command, b.command)) out.push('command changed');
  if (!same(a.args, b.args)) out.push('args changed');
  return out;
}

/** Env by name only: a value may be a secret, so "changed" says that it did, never from what to what. */
function envChanges(a: EnvVar[], b: EnvVar[]): string | null {
  const was = byName(a);
  const now = byName(b);
  const added = [...now.keys()].filter((k) => !was.has(k));
  const removed = [...was.keys()].filter((k) => !now.has(k));
  const changed = [...now.keys()].filter((k) => was.has(k) && !same(was.get(k), now.get(k)));
  const parts = [
    added.length ? `added ${added.join(', ')}` : '',
    removed.length ? `removed ${removed.join(', ')}` : '',
    changed.length ? `changed ${changed.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? `env ${parts.join('; ')}` : null;
}

/** The deployment's revisions as text: newest first, each with what changed since the one before it. */
export function describeRevisions(d: Deployment, sets: ReplicaSet[], max: number): string {
  const owned = ownedRevisions(d, sets);
  const where = `${d.metadata.namespace ?? ''}/${d.metadata.name}`;
  if (owned.length === 0) return '';
  const shown = owned.slice(0, max);
  const lines = [`deployment ${where}: ${owned.length} ReplicaSets kept, newest revision first`];
  shown.forEach((rs, i) => {
    lines.push(header(rs, i === 0));
    const previous = owned[i + 1];
    if (!previous) {
      lines.push('  the oldest revision kept: nothing to compare it with');
      return;
    }
    const changes = templateChanges(previous.spec?.template ?? {}, rs.spec?.template ?? {});
    lines.push(`  since revision ${revisionOf(previous)}:${changes.length ? '' : ' no change to the pod template'}`);
    for (const c of changes) lines.push(`    ${c}`);
  });
  if (owned.length > shown.length) lines.push(`(${owned.length - shown.length} older revisions not shown)`);
  return lines.join('\n');
}

function header(rs: ReplicaSet, newest: boolean): string {
  const ready = `${rs.status?.readyReplicas ?? 0}/${rs.spec?.replicas ?? 0} ready`;
  const cause = rs.metadata.annotations?.[CHANGE_CAUSE];
  const parts = [`replicaset ${rs.metadata.name}`, `created ${rs.metadata.creationTimestamp ?? '?'}`, ready];
  if (cause) parts.push(`change-cause ${JSON.stringify(cause)}`);
  return `revision ${revisionOf(rs)}${newest ? ' (current)' : ''}: ${parts.join(', ')}`;
}

function byName<T extends { name: string }>(items: T[]): Map<string, T> {
  return new Map(items.map((x) => [x.name, x]));
}

function union(a: Iterable<string>, b: Iterable<string>): string[] {
  return [...new Set([...a, ...b])];
}

function omit(o: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
}

function changedKeys(a: Record<string, unknown>, b: Record<string, unknown>): string[] {
  return union(Object.keys(a), Object.keys(b))
    .filter((k) => !same(a[k], b[k]))
    .sort();
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
