import type { z } from 'zod';
import { paramsKey } from '../../src/tools/call-key.js';
import type { CallVerdict, Tool, ToolContext, ToolOutput } from '../../src/tools/types.js';
import type { RemediationRules } from '../../src/records/remediation.js';
import type { RemediationSettings } from './config.js';
import type { KubectlAnswer, KubectlRunner } from './kubectl.js';
import { describeChange, markerOf, refusedByLabel, refusedByScope, type KubeObj, type Target } from './workload.js';

/** One write: a patch (merge, or JSON patch where a field must be replaced whole) or a delete. */
export type Write = { patch: unknown; type: 'merge' | 'json' } | { delete: true };

/** What an action would do to the object, in words and as the write, or why it will not. */
export type Plan = { summary: string; write: Write } | { refused: string };

/** What one remediation tool adds to the shared steps (scope, label, dry run, marker): its change. */
export interface RemediationAction {
  name: string;
  description: string;
  params: z.ZodObject;
  target(p: Record<string, unknown>): Target;
  plan(p: Record<string, unknown>, obj: KubeObj, marker: string, io: ActionIo): Promise<Plan>;
  /** Whether the object already carries this approval's change (a second run after a stop): nothing to write. */
  applied(p: Record<string, unknown>, obj: KubeObj, marker: string, ctx: ToolContext): boolean;
  /** What to answer when the object is gone at the time it is applied (a pod deleted already), else an error. */
  gone?: (t: Target) => ToolOutput;
}

export interface ActionIo {
  kubectl: KubectlRunner;
  signal: AbortSignal;
  settings: RemediationSettings;
}

/** The marker the dry run writes in place of the approval's: the approval does not exist yet. */
const DRY_RUN_MARKER = 'lestrade-dry-run';

const deny = (reason: string): CallVerdict => ({ decision: 'deny', reason });

/**
 * A remediation tool: side-effecting and idempotent. Before anyone is asked, its verdict reads the object,
 * applies the rails (namespaces, kinds, the opt-out label, the action's own limits) and has the API server dry-run
 * the write (`--dry-run=server`): the approval shows what will change, and a write the server refuses (RBAC,
 * admission) is the model's answer instead of a question. Run once approved, it reads the object again and
 * writes only when the object does not already carry this approval's marker.
 */
export function remediationTool(
  action: RemediationAction,
  settings: RemediationSettings,
  kubectl: KubectlRunner,
): Tool {
  const io = (signal: AbortSignal): ActionIo => ({ kubectl, signal, settings });
  return {
    name: action.name,
    description: `${action.description} Always waits for a human's approval, who sees the server's dry run of the change.`,
    params: action.params,
    sideEffects: true,
    idempotent: true,
    remediation: railsOf(action, settings),
    vouchesForLinks: true,
    async verdict(p) {
      const signal = AbortSignal.timeout((settings.timeoutSeconds + 10) * 1000);
      const t = action.target(p);
      const read = await readTarget(t, io(signal));
      // Asked again when an approved call runs: a pod it deleted before a stop is gone, and that is its answer.
      if ('refused' in read && read.gone && action.gone)
        return { decision: 'ask', reason: `${read.refused} (deleted already?): approving it changes nothing` };
      if ('refused' in read) return deny(read.refused);
      const plan = await action.plan(p, read.obj, DRY_RUN_MARKER, io(signal));
      if ('refused' in plan) return deny(plan.refused);
      const dry = await send(plan.write, t, true, io(signal));
      if (!dry.ok)
        return deny(
          `the API server refused the dry run of this change, so nobody was asked and nothing changed: ${dry.error}`,
        );
      const changes = 'delete' in plan.write ? [`${t.kind}/${t.name} deleted`] : describeChange(read.obj, dry.json);
      return {
        decision: 'ask',
        reason: `${plan.summary}. The API server's dry run says:\n${changes.map((l) => `  ${l}`).join('\n') || '  no field changes'}`,
      };
    },
    async run(p, ctx): Promise<ToolOutput> {
      if (!(ctx.approved && ctx.approvedCall === paramsKey(action.name, p)))
        return { status: 'error', error: `refused: ${action.name} needs a human's approval of this exact call` };
      const t = action.target(p);
      const marker = markerOf(ctx.approvalId ?? ctx.approvedCall);
      const read = await readTarget(t, io(ctx.signal));
      if ('refused' in read)
        return read.gone && action.gone ? action.gone(t) : { status: 'error', error: read.refused };
      if (action.applied(p, read.obj, marker, ctx))
        return {
          status: 'success',
          data: { applied: false, target: t, note: 'already applied by this approval' },
          alreadyApplied: true,
        };
      const plan = await action.plan(p, read.obj, marker, io(ctx.signal));
      if ('refused' in plan) return { status: 'error', error: plan.refused };
      const done = await send(plan.write, t, false, io(ctx.signal));
      if (!done.ok) return { status: 'error', error: `${action.name} failed: ${done.error}` };
      const changes = 'delete' in plan.write ? [`${t.kind}/${t.name} deleted`] : describeChange(read.obj, done.json);
      return { status: 'success', data: { applied: true, target: t, summary: plan.summary, changes } };
    },
  };
}

/** The engine's rails for this tool (docs/remediation.md, "Rails"): the workload a call changes and the limits. */
function railsOf(action: RemediationAction, settings: RemediationSettings): RemediationRules {
  return {
    workload: (p) => action.target(p),
    maxActionsPerDay: settings.maxActionsPerDay,
    maxActionsPerDayKey: 'toolsets.kubernetes_remediation.maxActionsPerDay',
    inFlightSeconds: settings.inFlightSeconds,
    holdAfterApplySeconds: settings.holdAfterApplySeconds ?? settings.verifyWindowSeconds,
  };
}

/** The object, or why the call may not touch it (scope, not found, the opt-out label). */
async function readTarget(
  t: Target,
  { kubectl, signal, settings }: ActionIo,
): Promise<{ obj: KubeObj } | { refused: string; gone?: true }> {
  const scope = refusedByScope(settings, t);
  if (scope) return { refused: scope };
  const got = await kubectl.run(['get', t.kind, t.name, '--namespace', t.namespace], signal);
  if (!got.ok)
    return got.notFound
      ? { refused: `${t.kind}/${t.name} not found in namespace ${t.namespace}`, gone: true }
      : { refused: `could not read ${t.kind}/${t.name}: ${got.error}` };
  const obj = got.json as KubeObj;
  const label = refusedByLabel(settings, t, obj);
  return label ? { refused: label } : { obj };
}

function send(write: Write, t: Target, dryRun: boolean, { kubectl, signal }: ActionIo): Promise<KubectlAnswer> {
  const where = [t.kind, t.name, '--namespace', t.namespace, ...(dryRun ? ['--dry-run=server'] : [])];
  if ('delete' in write) return kubectl.run(['delete', ...where, '--wait=false'], signal, { json: false });
  return kubectl.run(['patch', ...where, `--type=${write.type}`, '--patch', JSON.stringify(write.patch)], signal);
}
