import { clip } from '../log-safe.js';
import type { ApprovalDecision } from '../records/approval.js';
import type { Investigation, Phase } from '../store/investigation.js';
import type { RunControl } from '../store/run-control.js';
import type { Continuations } from '../queue/continuations.js';

export interface DecideDeps {
  runs: RunControl;
  continuations: Continuations;
}

/** An answer in the API's terms: an HTTP status and its JSON body. */
export interface DecideReply {
  status: number;
  body: Record<string, unknown>;
}

export type CallDecision = ApprovalDecision & { toolCallId: string };

/**
 * Records humans' decisions on an investigation's pending calls and, once every pending call is
 * decided, queues the resume. One path for the API, the CLI (through the API), Slack and ticket
 * comments: the answer says what happened (202 recorded, 409 not awaiting or already decided,
 * 422 no such pending call, 400 two decisions for one call).
 */
export async function decideCalls(
  deps: DecideDeps,
  inv: Investigation,
  decisions: CallDecision[],
): Promise<DecideReply> {
  const twice = decisions.find((d, i) => decisions.findIndex((e) => e.toolCallId === d.toolCallId) !== i);
  if (twice)
    return {
      status: 400,
      body: { error: `two decisions for tool call ${clip(twice.toolCallId, 256)} in one request` },
    };
  const phase = awaitingPhase(inv);
  if (!phase) {
    const queued = queuedPhase(inv);
    if (queued) await resumeIfDecided(deps, inv.id, queued);
    return { status: 409, body: { error: `investigation is not awaiting approval (status: ${activeStatus(inv)})` } };
  }
  const result = await deps.runs.decide(inv.id, phase, decisions);
  switch (result.outcome) {
    case 'not_awaiting':
      if (result.status === 'queued') await resumeIfDecided(deps, inv.id, phase);
      return {
        status: 409,
        body: { error: `investigation is not awaiting approval (status: ${result.status || 'unknown'})` },
      };
    case 'unknown': {
      const pending = inv.approvals?.pending.map((p) => p.toolCallId).join(', ') ?? '';
      return {
        status: 422,
        body: { error: `no pending tool call ${clip(result.toolCallId, 256)}; pending: ${pending}` },
      };
    }
    case 'decided':
      return { status: 409, body: { error: `tool call ${clip(result.toolCallId, 256)} was already decided` } };
    case 'partial': {
      const decided = new Set(decisions.map((d) => d.toolCallId));
      const waiting = (inv.approvals?.pending ?? []).map((p) => p.toolCallId).filter((t) => !decided.has(t));
      return { status: 202, body: { status: 'awaiting_approval', recorded: [...decided], waitingFor: waiting } };
    }
    case 'complete':
      await deps.continuations.resume(inv.id, phase, result.seq);
      await deps.continuations.dropExpiry(inv.id, result.seq);
      return { status: 202, body: { status: 'queued', recorded: decisions.map((d) => d.toolCallId) } };
  }
}

/**
 * Decided before, but the resume may not have been queued (the process died in between): queue it
 * again. Its job id makes that a no-op when it was, and a run never runs under two jobs at once.
 */
async function resumeIfDecided(deps: DecideDeps, id: string, phase: Phase): Promise<void> {
  const pause = await deps.runs.pauseState(id);
  if (!pause) return;
  await deps.continuations.resume(id, phase, pause.seq);
  await deps.continuations.dropExpiry(id, pause.seq);
}

function awaitingPhase(inv: Investigation): Phase | null {
  if (inv.status === 'awaiting_approval') return 'investigation';
  return inv.conversation.at(-1)?.status === 'awaiting_approval' ? 'ask' : null;
}

function queuedPhase(inv: Investigation): Phase | null {
  if (inv.status === 'queued') return 'investigation';
  return inv.status === 'completed' && inv.conversation.at(-1)?.status === 'queued' ? 'ask' : null;
}

/** The status of whichever run is the latest: the follow-up's once there is one. */
export function activeStatus(inv: Investigation): string {
  const ask = inv.conversation.at(-1);
  return inv.status === 'completed' && ask ? `completed; follow-up ${ask.status}` : inv.status;
}
