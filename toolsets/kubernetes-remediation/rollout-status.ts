import type { RolloutProbe, RolloutState } from '../../src/remediation/probes.js';
import type { KubectlRunner } from './kubectl.js';
import type { KubeObj } from './workload.js';

interface Rollable extends KubeObj {
  metadata: KubeObj['metadata'] & { generation?: number };
  spec?: { replicas?: number; updateStrategy?: { type?: string } } & Record<string, unknown>;
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    readyReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
    desiredNumberScheduled?: number;
    updatedNumberScheduled?: number;
    numberAvailable?: number;
    conditions?: { type: string; reason?: string }[];
  };
}

const progressing = (detail: string): RolloutState => ({ state: 'progressing', detail });
const observed = (o: Rollable) => (o.metadata.generation ?? 0) <= (o.status?.observedGeneration ?? 0);
const WAITING_SPEC = 'the controller has not yet seen the latest spec';

/** A Deployment's rollout, as kubectl's DeploymentStatusViewer judges it. */
function deployment(o: Rollable): RolloutState {
  const s = o.status ?? {};
  if (!observed(o)) return progressing(WAITING_SPEC);
  if (s.conditions?.some((c) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded'))
    return { state: 'failed', detail: `deployment/${o.metadata.name} exceeded its progress deadline` };
  const want = o.spec?.replicas ?? 1;
  const updated = s.updatedReplicas ?? 0;
  if (updated < want) return progressing(`${updated} of ${want} new replicas updated`);
  if ((s.replicas ?? 0) > updated)
    return progressing(`${(s.replicas ?? 0) - updated} old replicas pending termination`);
  if ((s.availableReplicas ?? 0) < updated)
    return progressing(`${s.availableReplicas ?? 0} of ${updated} updated replicas available`);
  return { state: 'done', detail: `${updated} of ${want} replicas updated and available` };
}

/** A StatefulSet's rolling update, as kubectl's StatefulSetStatusViewer judges it. */
function statefulSet(o: Rollable): RolloutState {
  const s = o.status ?? {};
  if (o.spec?.updateStrategy?.type && o.spec.updateStrategy.type !== 'RollingUpdate')
    return { state: 'done', detail: `update strategy ${o.spec.updateStrategy.type}: no rollout to follow` };
  if (!s.observedGeneration || !observed(o)) return progressing(WAITING_SPEC);
  const want = o.spec?.replicas ?? 1;
  if ((s.readyReplicas ?? 0) < want) return progressing(`${s.readyReplicas ?? 0} of ${want} pods ready`);
  if (s.updateRevision !== s.currentRevision)
    return progressing(`${s.updatedReplicas ?? 0} of ${want} pods at revision ${s.updateRevision ?? '?'}`);
  return { state: 'done', detail: `${want} pods ready at revision ${s.currentRevision ?? '?'}` };
}

/** A DaemonSet's rolling update, as kubectl's DaemonSetStatusViewer judges it. */
function daemonSet(o: Rollable): RolloutState {
  const s = o.status ?? {};
  if (o.spec?.updateStrategy?.type && o.spec.updateStrategy.type !== 'RollingUpdate')
    return { state: 'done', detail: `update strategy ${o.spec.updateStrategy.type}: no rollout to follow` };
  if (!observed(o)) return progressing(WAITING_SPEC);
  const want = s.desiredNumberScheduled ?? 0;
  if ((s.updatedNumberScheduled ?? 0) < want)
    return progressing(`${s.updatedNumberScheduled ?? 0} of ${want} updated pods scheduled`);
  if ((s.numberAvailable ?? 0) < want)
    return progressing(`${s.numberAvailable ?? 0} of ${want} updated pods available`);
  return { state: 'done', detail: `${want} of ${want} pods updated and available` };
}

const JUDGES: Record<string, (o: Rollable) => RolloutState> = {
  deployment,
  statefulset: statefulSet,
  daemonset: daemonSet,
};

/** How a workload's rollout stands, from the object as `kubectl get -o json` returns it. */
export function rolloutStateOf(kind: string, obj: unknown): RolloutState {
  const judge = JUDGES[kind];
  if (!judge) throw new Error(`no rollout to follow for kind ${kind}`);
  return judge(obj as Rollable);
}

/** The verifier's rollout probe: one `kubectl get` with the remediation context, judged as `rollout status` does. */
export function rolloutProbe(kubectl: KubectlRunner): RolloutProbe {
  return async (w, signal) => {
    const got = await kubectl.run(['get', w.kind, w.name, '--namespace', w.namespace], signal);
    if (!got.ok) throw new Error(`could not read ${w.kind}/${w.name} in ${w.namespace}: ${got.error}`);
    return rolloutStateOf(w.kind, got.json);
  };
}
