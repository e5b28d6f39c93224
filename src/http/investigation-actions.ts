import type { RedisClient } from '../redis/redis-connections.js';
import express, { type Response, type Router } from 'express';
import { z } from 'zod';
import { clip } from '../log-safe.js';
import { CancelSignals } from '../queue/cancel-signals.js';
import type { Continuations } from '../queue/continuations.js';
import type { Investigation } from '../store/investigation.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import { isInvestigationId } from '../redis/keys.js';
import type { Phase, RunControl } from '../store/run-control.js';
import { readJson } from './read-json-body.js';

export interface ActionDeps {
  redis: RedisClient;
  store: InvestigationStore;
  runs: RunControl;
  continuations: Continuations;
}

const DecisionsSchema = z.strictObject({
  decisions: z.array(z.strictObject({
    toolCallId: z.string().min(1).max(256),
    approved: z.boolean(),
    feedback: z.string().max(4000).optional(),
  })).min(1).max(100),
});

const AskSchema = z.strictObject({ question: z.string().trim().min(1).max(4000) });

/** POST /api/investigations/:id/approvals, /cancel and /ask: a human steering a run. */
export function investigationActions(deps: ActionDeps): Router {
  const router = express.Router();
  router.use(express.json({ limit: 64 * 1024 }));
  router.post('/:id/approvals', decideApprovals(deps));
  router.post('/:id/cancel', cancelRun(deps));
  router.post('/:id/ask', askFollowUp(deps));
  return router;
}

type Handler = (req: express.Request<{ id: string }>, res: Response) => Promise<void>;

/** POST /:id/approvals: the humans' decisions on the paused turn's calls; the last one queues the resume. */
function decideApprovals(deps: ActionDeps): Handler {
  return async (req, res) => {
    const inv = await found(deps.store, req.params.id, res);
    if (!inv) return;
    const { decisions } = readJson(req.body, DecisionsSchema);
    const twice = decisions.find((d, i) => decisions.findIndex((e) => e.toolCallId === d.toolCallId) !== i);
    if (twice) return void res.status(400).json({ error: `two decisions for tool call ${clip(twice.toolCallId, 256)} in one request` });
    const phase = awaitingPhase(inv);
    if (!phase) {
      const queued = queuedPhase(inv);
      if (queued) await resumeIfDecided(deps, inv.id, queued);
      return void res.status(409).json({ error: `investigation is not awaiting approval (status: ${activeStatus(inv)})` });
    }
    const result = await deps.runs.decide(inv.id, phase, decisions);
    switch (result.outcome) {
      case 'not_awaiting':
        if (result.status === 'queued') await resumeIfDecided(deps, inv.id, phase);
        return void res.status(409).json({ error: `investigation is not awaiting approval (status: ${result.status || 'unknown'})` });
      case 'unknown': {
        const pending = inv.approvals?.pending.map((p) => p.toolCallId).join(', ') ?? '';
        return void res.status(422).json({ error: `no pending tool call ${clip(result.toolCallId, 256)}; pending: ${pending}` });
      }
      case 'decided':
        return void res.status(409).json({ error: `tool call ${clip(result.toolCallId, 256)} was already decided` });
      case 'partial': {
        const decided = new Set(decisions.map((d) => d.toolCallId));
        const waiting = (inv.approvals?.pending ?? []).map((p) => p.toolCallId).filter((t) => !decided.has(t));
        return void res.status(202).json({ status: 'awaiting_approval', recorded: [...decided], waitingFor: waiting });
      }
      case 'complete':
        await deps.continuations.resume(inv.id, phase, result.seq);
        return void res.status(202).json({ status: 'queued', recorded: decisions.map((d) => d.toolCallId) });
    }
  };
}

/** POST /:id/cancel: stops the run (a running one where it runs). */
function cancelRun(deps: ActionDeps): Handler {
  return async (req, res) => {
    const inv = await found(deps.store, req.params.id, res);
    if (!inv) return;
    const result = await deps.runs.cancel(inv.id);
    if (result.phase === null) return void res.status(409).json({ error: `nothing to cancel (status: ${activeStatus(inv)})` });
    // A running one is stopped where it runs: its worker aborts the LLM request and the tools.
    if (result.previous === 'running') await CancelSignals.publish(deps.redis, inv.id);
    res.json({ status: 'cancelled', phase: result.phase, previous: result.previous });
  };
}

/** POST /:id/ask: a follow-up question to a completed investigation, answered from its conversation. */
function askFollowUp(deps: ActionDeps): Handler {
  return async (req, res) => {
    const inv = await found(deps.store, req.params.id, res);
    if (!inv) return;
    const { question } = readJson(req.body, AskSchema);
    if (inv.status !== 'completed') return void res.status(409).json({ error: `only a completed investigation takes follow-up questions (status: ${inv.status})` });
    if (!(await deps.store.hasCheckpoint(inv.id))) return void res.status(409).json({ error: 'the conversation history has expired; a follow-up needs it' });
    const result = await deps.runs.ask(inv.id, inv.conversation, question);
    if (result.outcome !== 'ok') {
      const why = result.outcome === 'busy' ? 'a follow-up question is already in progress' : 'only a completed investigation takes follow-up questions';
      return void res.status(409).json({ error: `${why} (status: ${result.status})` });
    }
    await deps.continuations.ask(inv.id, result.entry);
    res.status(202).json({ status: 'queued', entry: result.entry });
  };
}

/**
 * Decided before, but the resume may not have been queued (the process died in between): queue it
 * again. Its job id makes that a no-op when it was, and a run never runs under two jobs at once.
 */
async function resumeIfDecided(deps: ActionDeps, id: string, phase: Phase): Promise<void> {
  const pause = await deps.runs.pauseState(id);
  if (pause) await deps.continuations.resume(id, phase, pause.seq);
}

async function found(store: InvestigationStore, id: string, res: Response): Promise<Investigation | null> {
  const inv = isInvestigationId(id) ? await store.get(id) : null;
  if (!inv) res.status(404).json({ error: `no investigation ${clip(id, 64)}` });
  return inv;
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
function activeStatus(inv: Investigation): string {
  const ask = inv.conversation.at(-1);
  return inv.status === 'completed' && ask ? `completed; follow-up ${ask.status}` : inv.status;
}
