import type { Logger } from '../log.js';
import { noMetrics, type Metrics } from '../observability/metrics.js';
import type { RedisClient } from '../redis/redis-connections.js';
import {
  announceRemediationApplied,
  type RemediationEntry,
  type RemediationProposal,
  type RemediationRails,
  type RemediationRan,
} from '../records/remediation.js';
import {
  acquireInFlight,
  appliedOn,
  countApplied,
  extendInFlight,
  recordRemediation,
  releaseInFlight,
} from './remediation-log.js';

export interface RemediationRailsOptions {
  log: Logger;
  metrics?: Metrics;
  now?: () => Date;
}

/** The result of a call that ran, for the record and the metric. */
function resultOf(r: RemediationRan['result']): RemediationEntry['result'] {
  if (r.status !== 'success') return 'failed';
  return r.alreadyApplied ? 'already_applied' : 'applied';
}

/**
 * The remediation rails of one investigation on Redis (docs/remediation.md, "Rails"): one remediation in flight
 * per workload (acquireInFlight, before anyone is asked), `maxActionsPerDay` applied actions per UTC day across
 * every worker, and for each approved call that ran one `remediation[]` entry, one count, one log line with its
 * approver, one `lestrade_remediations_total` and one onRemediationApplied, however often a re-run finds it.
 */
export function redisRemediationRails(
  redis: RedisClient,
  investigationId: string,
  { log, metrics = noMetrics, now = () => new Date() }: RemediationRailsOptions,
): RemediationRails {
  const holderOf = (p: RemediationProposal) => ({ investigationId, toolCallId: p.toolCallId });
  const refuse = (p: RemediationProposal, reason: string) => {
    metrics.remediation(p.tool, 'refused');
    log.info({ investigationId, toolCallId: p.toolCallId, tool: p.tool, reason }, 'remediation refused by the rails');
    return reason;
  };
  return {
    async propose(p) {
      const w = p.rules.workload(p.params);
      const today = await appliedOn(redis, now());
      if (today >= p.rules.maxActionsPerDay)
        return refuse(
          p,
          `${today} remediations were applied today (UTC), the most ${p.rules.maxActionsPerDayKey} allows ` +
            `(${p.rules.maxActionsPerDay}): nobody was asked; raise ${p.rules.maxActionsPerDayKey} to allow more`,
        );
      const held = await acquireInFlight(redis, w, holderOf(p), p.rules.inFlightSeconds);
      if (!held) return null;
      return refuse(
        p,
        `${w.kind} ${w.namespace}/${w.name} already has a remediation in flight: investigation ` +
          `${held.investigationId}, call ${held.toolCallId}; nobody was asked: propose it again once that one is done`,
      );
    },
    refused(p, reason) {
      refuse(p, reason);
    },
    async drop(p) {
      await releaseInFlight(redis, p.rules.workload(p.params), holderOf(p));
    },
    ran: (p) => recordRan(redis, investigationId, p, { log, metrics, now }),
  };
}

/**
 * An approved call that ran: counted on its day once (not when it failed), the workload freed or held for
 * holdAfterApplySeconds, and, the first time only, its entry written, counted, logged with its approver and announced.
 */
async function recordRan(
  redis: RedisClient,
  investigationId: string,
  p: RemediationRan,
  { log, metrics, now }: Required<RemediationRailsOptions>,
): Promise<void> {
  const workload = p.rules.workload(p.params);
  const holder = { investigationId, toolCallId: p.toolCallId };
  const result = resultOf(p.result);
  const entry: RemediationEntry = {
    toolCallId: p.toolCallId,
    appliedId: p.appliedId,
    tool: p.tool,
    params: p.params,
    workload,
    ...(p.approvedBy ? { approvedBy: p.approvedBy } : {}),
    appliedAt: now().toISOString(),
    result,
    output: (p.result.status === 'success' ? p.result.data : p.result.error) ?? '',
  };
  if (result !== 'failed') await countApplied(redis, p.appliedId, now());
  const hold = result === 'failed' ? 0 : p.rules.holdAfterApplySeconds;
  if (hold > 0) await extendInFlight(redis, workload, holder, hold);
  else await releaseInFlight(redis, workload, holder);
  if (!(await recordRemediation(redis, investigationId, entry))) return;
  metrics.remediation(p.tool, result);
  const by = p.approvedBy ? `${p.approvedBy.via}:${p.approvedBy.user}` : 'unknown';
  log.info(
    {
      investigationId,
      toolCallId: p.toolCallId,
      appliedId: p.appliedId,
      tool: p.tool,
      workload,
      result,
      approvedBy: by,
    },
    `remediation ${result}: ${p.tool} on ${workload.kind} ${workload.namespace}/${workload.name}, approved by ${by}`,
  );
  if (result === 'failed') return;
  for (const err of announceRemediationApplied({ investigationId, ...entry, result }))
    log.warn({ investigationId, err }, 'an onRemediationApplied listener failed');
}
