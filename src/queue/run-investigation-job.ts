import { DelayedError, type Job } from 'bullmq';
import { toToolCallRecord, type Investigation } from '../store/investigation.js';
import { vouchedHosts } from '../render/vouched-hosts.js';
import type { InvestigationJobData } from '../redis/job-data.js';
import { runFollowUpJob } from './follow-up-job.js';
import { runLoopJob, type JobDeps, type LoopJob } from './job-run.js';
import { CHECK_SOURCE, type InvestigateOptions } from '../investigation/investigator.js';
import type { CheckOutcome } from '../records/check-result.js';
import type { DeployEvent } from '../records/deploy-event.js';
import type { LoopResult } from '../loop/run-loop.js';
import { initialState, type LoopState } from '../records/loop-state.js';
import type { Issue } from '../issue.js';

export type { JobDeps, OnCompleted } from './job-run.js';

/**
 * One job: the investigation's first run, a resume after approvals (or their expiry), or a
 * follow-up question (follow-up-job.ts). The record's status decides what, if anything, is left
 * to do, so a redelivered or stale job does nothing twice.
 */
export async function runInvestigationJob(
  job: Job<InvestigationJobData>,
  deps: JobDeps,
  token?: string,
): Promise<void> {
  const id = job.data.investigationId;
  const inv = await deps.store.get(id);
  if (!inv) {
    deps.log.warn({ id }, 'investigation record gone (expired?); dropping job');
    return;
  }
  if ((job.data.phase ?? 'investigation') === 'ask') return runFollowUpJob(job, inv, deps);
  await runInvestigation(job, inv, deps, token);
}

async function runInvestigation(
  job: Job<InvestigationJobData>,
  inv: Investigation,
  deps: JobDeps,
  token?: string,
): Promise<void> {
  const { id } = inv;
  // The job of the record's current run: its first (the investigation's id) or a re-run's (runId).
  if (inv.status === 'completed' && (job.id === id || job.id === inv.runId)) {
    // Redelivered after completion (a crash before the job was acknowledged): the write-back
    // request may be what was lost. Requesting it again is idempotent.
    await deps.onCompleted?.(inv);
    return;
  }
  if (inv.status !== 'queued' && inv.status !== 'running') return;
  if (!(await admitted(job, inv, deps, token))) return;
  const completed = await runLoopJob(job, inv, investigation(inv, deps), deps);
  // Outside the run: a failure here must not mark the completed investigation for a re-run;
  // the job is retried and the guard above requests the write-back again.
  const done = completed && deps.onCompleted ? await deps.store.get(id) : null;
  if (done) await deps.onCompleted!(done);
}

/** Skip rules, budgets and a group's quiet time decide whether the investigation starts now. */
async function admitted(
  job: Job<InvestigationJobData>,
  inv: Investigation,
  deps: JobDeps,
  token?: string,
): Promise<boolean> {
  const gate = deps.hooks ? await deps.hooks.admit(inv) : { kind: 'run' as const };
  if (gate.kind === 'skip') {
    await deps.runs.skip(inv.id, gate.reason);
    deps.metrics?.investigationRun({
      source: inv.source,
      phase: 'investigation',
      outcome: 'skipped',
      seconds: 0,
      steps: null,
    });
    deps.log.info({ id: inv.id, reason: gate.reason }, 'investigation skipped');
    return false;
  }
  if (gate.kind === 'wait') {
    // Held back (a budget, a group's quiet time): back to the queue without using up an attempt.
    await deps.store.setWaiting(inv.id, gate.reason, gate.until);
    await job.moveToDelayed(Date.now() + gate.delayMs, token);
    throw new DelayedError(gate.reason);
  }
  if (inv.waitingReason) await deps.store.setWaiting(inv.id, '', null);
  return true;
}

function investigation(inv: Investigation, deps: JobDeps): LoopJob {
  const { id } = inv;
  // The confirmed predecessor whose RCA this run writes back instead of running the model (memory.reuseConfirmed).
  let reused: Investigation | null = null;
  return {
    phase: 'investigation',
    noun: 'investigation',
    statusOf: (record) => record.status,
    async run(checkpoint, opts) {
      // A group's members could join until the run began; from here on, late ones start a follow-up.
      const issue = inv.coalescing ? ((await deps.store.get(id))?.issue ?? inv.issue) : inv.issue;
      if (checkpoint) return deps.investigator.investigate(issue, { ...opts, resumeFrom: checkpoint });
      const fresh = await freshRun(inv, issue, opts, deps);
      reused = fresh.reused;
      return fresh.result;
    },
    async finish(result, progress) {
      const { usage, toolCalls } = result.state;
      // Only results read from an outside system vouch for a link, never text the model chose (vouched-hosts.ts);
      // a reused RCA keeps the links its own run's results vouched for.
      const completed = await deps.runs.complete(id, {
        rca: result.answer,
        ...progress,
        linkHosts: reused ? reused.linkHosts : vouchedHosts(toolCalls),
        ...(inv.source === CHECK_SOURCE ? { check: checkOutcome(inv.issue, result.state) } : {}),
      });
      if (completed && reused) deps.metrics?.memoryReused(inv.source);
      // Accounting must not turn a completed investigation into a retried one.
      if (completed)
        await deps.hooks
          ?.settled(id, usage)
          .catch((err: Error) => deps.log.warn({ id, err: err.message }, 'could not record usage'));
      if (completed)
        deps.log.info({ id, llmCalls: usage.llmCalls, toolCalls: toolCalls.length }, 'investigation completed');
      return completed;
    },
    async fail(f, message, giveUp) {
      if (giveUp) {
        const progress = f.partial
          ? { toolCalls: f.partial.toolCalls.map(toToolCallRecord), usage: f.partial.usage }
          : undefined;
        await deps.runs.fail(id, message, progress);
        if (progress)
          await deps.hooks
            ?.settled(id, progress.usage)
            .catch((err2: Error) => deps.log.warn({ id, err: err2.message }, 'could not record usage'));
      } else {
        await deps.runs.requeue(id, message);
      }
    },
  };
}

/**
 * A run from the issue (no checkpoint): memory is asked first (docs/memory.md). A confirmed predecessor's
 * RCA is the answer without any LLM request; else the model runs, told of the similar past incidents.
 */
async function freshRun(
  inv: Investigation,
  issue: Issue,
  opts: InvestigateOptions,
  deps: JobDeps,
): Promise<{ result: LoopResult; reused: Investigation | null }> {
  // Memory helps; it never stops an investigation: without it the model runs, told of nothing past.
  const recalled = deps.memory
    ? await deps.memory.recall(inv, issue).catch((err: Error) => {
        deps.log.warn({ id: inv.id, err: err.message }, 'memory could not be read; investigating without it');
        return null;
      })
    : null;
  if (recalled?.reuse) return { result: reusedAnswer(recalled.reuse), reused: recalled.reuse };
  const result = await deps.investigator.investigate(issue, {
    ...opts,
    resumeFrom: null,
    similar: recalled?.similar ?? [],
  });
  return { result, reused: null };
}

/** The predecessor's RCA as this run's answer: no LLM call, no tool call, no usage. */
function reusedAnswer(past: Investigation): LoopResult {
  const state: LoopState = initialState([]);
  return { answer: past.rca ?? '', finishReason: 'answer', state };
}

/** A check's verdict as the model reported it; `error` when the run ended without one (docs/checks.md). */
export function checkOutcome(issue: Issue, state: LoopState): CheckOutcome {
  const deploy = (issue.raw as { deploy?: DeployEvent } | null)?.deploy;
  const verdict = state.check?.verdict;
  const base = { name: issue.labels.check ?? issue.title, ...(deploy ? { deploy } : {}) };
  if (verdict) return { ...base, status: verdict.status, summary: verdict.summary, evidence: verdict.evidence };
  return { ...base, status: 'error', summary: 'the run ended without a verdict (report_check_result)', evidence: [] };
}
