import type { Logger } from '../log.js';
import type { Investigation } from '../store/investigation.js';
import { ROLLOUT_TOOLS, type RemediationApplied } from './applied-event.js';
import type { Observation } from './judge.js';
import type { VerifyProbes } from './probes.js';

const TIMEOUT_MS = 20_000;

/** One look at the workload and the alert (or issue), each probe on its own: one that fails counts as no answer. */
export async function observe(
  e: RemediationApplied,
  inv: Pick<Investigation, 'issue' | 'issueStatus' | 'resolvedAt' | 'source'> | null,
  probes: VerifyProbes,
  at: { now: number; deadline: number },
  log: Logger,
): Promise<Observation> {
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  const [rollout, issue] = await Promise.all([
    rolloutOf(e, probes, signal, log),
    issueOf(inv, probes, at.now, signal, log),
  ]);
  return { ...at, rollout, issue };
}

async function rolloutOf(
  e: RemediationApplied,
  probes: VerifyProbes,
  signal: AbortSignal,
  log: Logger,
): Promise<Observation['rollout']> {
  if (!ROLLOUT_TOOLS.has(e.tool)) return 'n/a';
  if (!probes.rollout) return 'unreadable';
  try {
    return await probes.rollout(e.workload, signal);
  } catch (err) {
    log.warn({ id: e.investigationId, workload: e.workload, err: (err as Error).message }, 'rollout not readable');
    return 'unreadable';
  }
}

/**
 * The record first (its source reported the resolution: an Alertmanager "resolved" webhook, a ticket closed),
 * then the alert probes for an alert: the first that can tell. A ticket or incident has only its record.
 */
async function issueOf(
  inv: Pick<Investigation, 'issue' | 'issueStatus' | 'resolvedAt' | 'source'> | null,
  probes: VerifyProbes,
  now: number,
  signal: AbortSignal,
  log: Logger,
): Promise<Observation['issue']> {
  const what = inv?.issue.labels.alertname ? 'alert' : 'issue';
  const via = `its status in ${inv?.source ?? 'the record'}`;
  if (!inv) return { resolved: false, live: false, what, via: 'the investigation is gone' };
  if (inv.issueStatus === 'resolved')
    return { resolved: true, at: inv.resolvedAt ? Date.parse(inv.resolvedAt) : now, what, via };
  for (const probe of what === 'alert' ? (probes.alerts ?? []) : []) {
    try {
      const got = await probe.check(inv.issue, signal);
      if (got)
        return got.firing
          ? { resolved: false, live: true, what, via: got.via }
          : { resolved: true, at: now, what, via: got.via };
    } catch (err) {
      log.warn({ probe: probe.name, err: (err as Error).message }, 'alert probe did not answer');
    }
  }
  return { resolved: false, live: false, what, via };
}
