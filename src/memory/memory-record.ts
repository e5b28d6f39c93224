import { DEFAULT_IDENTIFYING_LABELS } from '../config/memory-schema.js';
import type { Issue } from '../issue.js';
import { podWorkload } from './pod-workload.js';

import type { Verdict } from '../records/feedback.js';

/** What a person said of an RCA (the one type of records/feedback.ts). */
export type { Verdict };

/**
 * The compact memory of one finished investigation (docs/memory.md): who the issue was (source,
 * fingerprint, alert name, the labels that name its workload and place), what its root cause was
 * (a person's when one was given, else the RCA's) and what people said of it.
 */
export interface MemoryRecord {
  investigationId: string;
  source: string;
  fingerprint: string;
  /** Where the issue lives in its source ("OPS-7", "octo/app#12"), when it has such a place. */
  locatorKey?: string;
  /** The group the issue was investigated with (an Alertmanager group key). */
  groupKey?: string;
  alertName?: string;
  /** Only identifying labels (`memory.identifyingLabels`: namespace, service, job, cluster, …). */
  labels: Record<string, string>;
  title: string;
  rootCause: string;
  rootCauseBy: 'person' | 'rca';
  verdict: Verdict | null;
  /** Who gave the verdict (and the root cause, when rootCauseBy is 'person'). */
  confirmedBy?: string;
  /** ISO time the investigation finished. */
  at: string;
}

/** A past incident found similar to a new issue, best first. */
export interface SimilarIncident {
  /** The past investigation's id. */
  id: string;
  title: string;
  at: string;
  /** 0–1; at least `memory.minScore`. */
  score: number;
  verdict: Verdict | null;
  rootCause: string;
  rootCauseBy: 'person' | 'rca';
  confirmedBy?: string;
  /** The same source and fingerprint: the very same alert or ticket, not only a similar one. */
  sameFingerprint: boolean;
}

/** What a new issue is looked up by. */
export interface MemoryQuery {
  source: string;
  fingerprint: string;
  alertName?: string;
  labels: Record<string, string>;
  title: string;
  groupKey?: string;
}

/** The longest title and root cause a record keeps (characters): a record stays small. */
export const MAX_TITLE_CHARS = 300;
export const MAX_ROOT_CAUSE_CHARS = 2_000;

/**
 * Only the identifying labels of `labels`, by name (`memory.identifyingLabels`), empty values left
 * out; `workload`, when named and not a label already, is derived from `pod` (see pod-workload.ts),
 * so alerts that carry only a pod (kube-state-metrics, cAdvisor) still name their Deployment.
 */
export function identifyingLabelsOf(
  labels: Record<string, string>,
  names: readonly string[] = DEFAULT_IDENTIFYING_LABELS,
): Record<string, string> {
  const out: Record<string, string> = {};
  const value = (name: string) => (Object.hasOwn(labels, name) ? labels[name]?.trim() : undefined);
  for (const name of names) {
    const v = value(name);
    if (v) out[name] = v;
  }
  const pod = value('pod');
  const workload = pod && !out.workload && names.includes('workload') ? podWorkload(pod) : undefined;
  if (workload) out.workload = workload;
  return out;
}

/** What a new issue is looked up by: its identity, alert name (labels.alertname) and identifying labels. */
export function memoryQueryOf(issue: Issue, names: readonly string[] = DEFAULT_IDENTIFYING_LABELS): MemoryQuery {
  const alertName = Object.hasOwn(issue.labels, 'alertname') ? issue.labels.alertname?.trim() : undefined;
  return {
    source: issue.source,
    fingerprint: issue.fingerprint,
    ...(alertName ? { alertName } : {}),
    labels: identifyingLabelsOf(issue.labels, names),
    title: issue.title,
    ...(issue.group ? { groupKey: issue.group.key } : {}),
  };
}
