import type { ApprovalDecision } from '../records/approval.js';
import { askQuestion } from './ask-question.js';
import type { Continuations } from '../queue/continuations.js';
import { decideCalls, type CallDecision, type DecideReply } from './decide-calls.js';
import { isInvestigationId, keysOf } from '../redis/keys.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { rerunInvestigation, rerunReply } from './rerun.js';
import type { Investigation } from '../store/investigation.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { RunControl } from '../store/run-control.js';
import type { FeedbackStore } from '../store/feedback-store.js';
import { giveFeedback, type GivenFeedback } from './give-feedback.js';

/**
 * What a human may do from a destination (Slack's buttons), through the same functions as the API
 * and the CLI: decideCalls, askQuestion, rerunInvestigation. Every answer is the API's (status and body), so a refusal
 * reads the same wherever it is shown.
 */
export interface HumanActions {
  /** The investigation, or null (an unknown or malformed id). */
  get(id: string): Promise<Investigation | null>;
  /** A call's decision, when one was made: this pause's, else the one recorded on the tool call. */
  decisionOf(inv: Investigation, toolCallId: string): Promise<ApprovalDecision | null>;
  decide(inv: Investigation, decisions: CallDecision[]): Promise<DecideReply>;
  ask(inv: Investigation, question: string): Promise<DecideReply>;
  /** Runs a finished investigation again (POST /api/investigations/:id/rerun's path and answers). */
  rerun(inv: Investigation): Promise<DecideReply>;
  /** A person's verdict on the RCA (POST /api/investigations/:id/feedback's path and answers). */
  feedback(inv: Investigation, given: GivenFeedback): Promise<DecideReply>;
  /** Has every routed destination re-render its message of the investigation (edited in place). */
  refresh(id: string): Promise<void>;
  /**
   * Claims a signed request's id (a Slack signature) for `ttlSeconds`, across every process (Redis SET NX):
   * true the first time, false for a replay within that time.
   */
  firstSeen(scope: string, requestId: string, ttlSeconds: number): Promise<boolean>;
}

export interface HumanActionsDeps {
  redis: RedisClient;
  store: InvestigationStore;
  runs: RunControl;
  continuations: Continuations;
  /** Where verdicts are kept; without it a verdict is answered 503. */
  feedback?: FeedbackStore;
  /** Queues the re-rendering of the investigation's messages (DestinationQueue.updated). */
  refresh(inv: Investigation): Promise<void>;
}

export function humanActions(deps: HumanActionsDeps): HumanActions {
  return {
    get: async (id) => (isInvestigationId(id) ? deps.store.get(id) : null),
    decisionOf: async (inv, toolCallId) => {
      const now = (await deps.runs.outcome(inv.id)).decisions.get(toolCallId);
      if (now) return now;
      const call = inv.toolCalls.find((c) => c.toolCallId === toolCallId && c.decidedBy);
      if (!call?.decidedBy) return null;
      return { approved: call.status !== 'denied', decidedBy: call.decidedBy };
    },
    decide: (inv, decisions) => decideCalls(deps, inv, decisions),
    ask: (inv, question) => askQuestion(deps, inv, question),
    rerun: async (inv) => rerunReply(await rerunInvestigation(deps, inv.id), inv.id),
    feedback: async (inv, given) =>
      deps.feedback
        ? giveFeedback({ store: deps.store, feedback: deps.feedback }, inv, given)
        : { status: 503, body: { error: 'verdicts are not taken by this process' } },
    refresh: async (id) => {
      const inv = await deps.store.get(id);
      if (inv) await deps.refresh(inv);
    },
    firstSeen: async (scope, requestId, ttlSeconds) =>
      (await deps.redis.set(keysOf(deps.redis).delivery(scope, requestId), '1', 'EX', ttlSeconds, 'NX')) === 'OK',
  };
}
