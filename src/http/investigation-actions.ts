import type { RedisClient } from '../redis/redis-connections.js';
import express, { type Response, type Router } from 'express';
import { z } from 'zod';
import { clip } from '../log-safe.js';
import { CancelSignals } from '../queue/cancel-signals.js';
import type { Continuations } from '../queue/continuations.js';
import type { Investigation } from '../store/investigation.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import { isInvestigationId } from '../redis/keys.js';
import type { RunControl } from '../store/run-control.js';
import { readJson } from '../read-json.js';
import { activeStatus, decideCalls } from '../actions/decide-calls.js';
import { rerunInvestigation, rerunReply } from '../actions/rerun.js';
import { askQuestion } from '../actions/ask-question.js';
import { actorOf, type Actor } from '../dashboard/dashboard-auth.js';
import type { DecidedBy } from '../records/approval.js';
import type { Logger } from '../log.js';
import type { FeedbackStore } from '../store/feedback-store.js';
import { FeedbackBodySchema, type FeedbackEntry } from '../records/feedback.js';
import { giveFeedback } from '../actions/give-feedback.js';

export interface ActionDeps {
  redis: RedisClient;
  store: InvestigationStore;
  runs: RunControl;
  continuations: Continuations;
  /** Where people's verdicts on RCAs are kept (POST /:id/feedback). */
  feedback?: FeedbackStore;
  /** Says who cancelled, re-ran or asked (the token's name), when it is known. */
  log?: Logger;
}

const DecisionsSchema = z.strictObject({
  decisions: z
    .array(
      z.strictObject({
        toolCallId: z.string().min(1).max(256),
        approved: z.boolean(),
        feedback: z.string().max(4000).optional(),
      }),
    )
    .min(1)
    .max(100),
  /**
   * Who is deciding, as the caller says (the CLI sends its user): recorded on each call's record only
   * when no token says who it is (no API token configured). With a token, its name is recorded.
   */
  decidedBy: z
    .strictObject({
      via: z.enum(['api', 'cli']),
      user: z.string().trim().min(1).max(200),
      name: z.string().max(200).optional(),
    })
    .optional(),
});

const AskSchema = z.strictObject({ question: z.string().trim().min(1).max(4000) });

/** POST /api/investigations/:id/approvals, /cancel, /ask, /rerun and /feedback: a human steering a run, or rating it. */
export function investigationActions(deps: ActionDeps): Router {
  const router = express.Router();
  router.use(express.json({ limit: 64 * 1024 }));
  router.post('/:id/approvals', decideApprovals(deps));
  router.post('/:id/cancel', cancelRun(deps));
  router.post('/:id/ask', askFollowUp(deps));
  router.post('/:id/rerun', rerun(deps));
  if (deps.feedback) router.post('/:id/feedback', rate({ store: deps.store, feedback: deps.feedback }));
  return router;
}

type Handler = (req: express.Request<{ id: string }>, res: Response) => Promise<void>;

/** POST /:id/approvals: the humans' decisions on the paused turn's calls; the last one queues the resume. */
function decideApprovals(deps: ActionDeps): Handler {
  return async (req, res) => {
    const inv = await found(deps.store, req.params.id, res);
    if (!inv) return;
    const { decisions, decidedBy: claimed } = readJson(req.body, DecisionsSchema);
    const decidedBy = decider(actorOf(res), claimed);
    const reply = await decideCalls(
      deps,
      inv,
      decisions.map((d) => ({ ...d, ...(decidedBy ? { decidedBy } : {}) })),
    );
    res.status(reply.status).json(reply.body);
  };
}

/** POST /:id/cancel: stops the run (a running one where it runs). */
function cancelRun(deps: ActionDeps): Handler {
  return async (req, res) => {
    const inv = await found(deps.store, req.params.id, res);
    if (!inv) return;
    const result = await deps.runs.cancel(inv.id);
    if (result.phase === null)
      return void res.status(409).json({ error: `nothing to cancel (status: ${activeStatus(inv)})` });
    said(deps, res, inv.id, 'investigation cancelled');
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
    const reply = await askQuestion(deps, inv, question);
    if (reply.status < 300) said(deps, res, inv.id, 'follow-up question asked');
    res.status(reply.status).json(reply.body);
  };
}

/** POST /:id/rerun: a finished or failed investigation runs again from its issue, as a new run. */
function rerun(deps: ActionDeps): Handler {
  return async (req, res) => {
    const reply = rerunReply(await rerunInvestigation(deps, req.params.id), req.params.id);
    if (reply.status < 300) said(deps, res, req.params.id, 'investigation re-run');
    res.status(reply.status).json(reply.body);
  };
}

/** POST /:id/feedback: a person's verdict on the RCA; the latest per person counts, a repeat changes nothing. */
function rate(deps: { store: InvestigationStore; feedback: FeedbackStore }): Handler {
  return async (req, res) => {
    const inv = await found(deps.store, req.params.id, res);
    if (!inv) return;
    const { by: claimed, ...given } = readJson(req.body, FeedbackBodySchema);
    const reply = await giveFeedback(deps, inv, { ...given, by: rater(actorOf(res), claimed) });
    res.status(reply.status).json(reply.body);
  };
}

/**
 * Who rated: the token's name (or the dashboard session's), whatever the body claims; the CLI's `via` is kept.
 * With no token configured, what the caller said, else "anonymous".
 */
export function rater(actor: Actor | undefined, claimed: { via: 'api' | 'cli'; user: string } | undefined) {
  const by: FeedbackEntry['by'] = actor
    ? { via: actor.via === 'dashboard' ? 'dashboard' : (claimed?.via ?? 'api'), user: actor.name }
    : (claimed ?? { via: 'api', user: 'anonymous' });
  return by;
}

type Claimed = z.infer<typeof DecisionsSchema>['decidedBy'];

/**
 * Who decided: the token's name (a bearer token, or the token a dashboard session signed in with),
 * whatever the body claims; the CLI's `via` is kept. With no token configured, what the caller said.
 */
export function decider(actor: Actor | undefined, claimed: Claimed): DecidedBy | undefined {
  if (!actor) return claimed;
  const via = actor.via === 'dashboard' ? 'dashboard' : (claimed?.via ?? 'api');
  return { via, user: actor.name };
}

/** A log line naming who did it (the token's name), when a token said so. */
function said(deps: ActionDeps, res: Response, id: string, what: string): void {
  const actor = actorOf(res);
  deps.log?.info({ id, by: actor?.name ?? 'anyone (no API token configured)', via: actor?.via ?? 'api' }, what);
}

async function found(store: InvestigationStore, id: string, res: Response): Promise<Investigation | null> {
  const inv = isInvestigationId(id) ? await store.get(id) : null;
  if (!inv) res.status(404).json({ error: `no investigation ${clip(id, 64)}` });
  return inv;
}
