import { createHash } from 'node:crypto';
import type { RemediationKind, RemediationSettings } from './config.js';

/** The parts of a Kubernetes object the remediation tools read. */
export interface KubeObj {
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
}

/** The object a call targets. */
export interface Target {
  kind: RemediationKind;
  namespace: string;
  name: string;
}

/** Set on the object in the same write as the change: the approval that changed it, so a second run finds it. */
export const MARKER_ANNOTATION = 'lestrade.io/remediation';
export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

/** A marker of this approval, the same whichever worker runs it (ToolContext.approvalId, else the call's key). */
export function markerOf(approvalId: string): string {
  return `lestrade-${createHash('sha256').update(approvalId).digest('hex').slice(0, 16)}`;
}

/** Why the settings forbid touching this kind in this namespace, or null. */
export function refusedByScope(s: RemediationSettings, t: Target): string | null {
  if (!s.kinds.includes(t.kind))
    return `kind "${t.kind}" is not in toolsets.kubernetes_remediation.kinds (${s.kinds.join(', ') || 'none'})`;
  if (!s.namespaces.includes(t.namespace))
    return (
      `namespace "${t.namespace}" is not in toolsets.kubernetes_remediation.namespaces ` +
      `(${s.namespaces.length ? s.namespaces.join(', ') : 'empty: no namespace may be changed'})`
    );
  return null;
}

/** Why the object's own label forbids touching it, or null. */
export function refusedByLabel(s: RemediationSettings, t: Target, obj: KubeObj): string | null {
  const value = obj.metadata.labels?.[s.optOutLabel];
  return value !== undefined && value !== 'false'
    ? `${t.kind}/${t.name} carries the label ${s.optOutLabel}=${value}: Lestrade never changes it`
    : null;
}

const IGNORED = /^(metadata\.(resourceVersion|generation|managedFields|uid|creationTimestamp)|status)(\.|$)/;

function leaves(value: unknown, path: string, out: Map<string, string>): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) leaves(v, path ? `${path}.${k}` : k, out);
  } else if (!IGNORED.test(path)) out.set(path, JSON.stringify(value));
}

/** What differs between two versions of an object, one line per changed field ("spec.replicas: 3 → 5"). */
export function describeChange(before: unknown, after: unknown, max = 20): string[] {
  const a = new Map<string, string>();
  const b = new Map<string, string>();
  leaves(before, '', a);
  leaves(after, '', b);
  const lines: string[] = [];
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    if (a.get(path) === b.get(path) || path === `metadata.annotations.${MARKER_ANNOTATION}`) continue;
    lines.push(`${path}: ${clip(a.get(path) ?? '(none)')} → ${clip(b.get(path) ?? '(none)')}`);
  }
  return lines.length > max ? [...lines.slice(0, max), `… and ${lines.length - max} more fields`] : lines;
}

const clip = (s: string) => (s.length > 120 ? `${s.slice(0, 117)}…` : s);
