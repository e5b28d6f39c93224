import express, { type Router } from 'express';
import { clip } from '../log-safe.js';
import type { WaitingStats } from '../queue/intake-queue.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { Investigation } from '../store/investigation.js';
import type { Outcome } from '../quality/outcome.js';
import { isInvestigationId } from '../redis/keys.js';
import { parseListQuery } from './list-query.js';
import type { FeedbackStore } from '../store/feedback-store.js';
import type { FeedbackEntry } from '../records/feedback.js';

/** GET /api/investigations and /api/investigations/:id. */
export function investigationsRouter(
  store: InvestigationStore,
  llmConfigured: boolean,
  waitingStats?: () => Promise<WaitingStats>,
  /** People's verdicts (`feedback`), and what became of it (`outcome`, quality/outcome.ts) computed from them. */
  verdicts: {
    feedback?: FeedbackStore;
    outcome?: (inv: Investigation, feedback: FeedbackEntry[]) => Promise<Outcome>;
  } = {},
  /** Map the placeholders of redaction back to the values in GET /:id (`redaction.restoreIn: [api]`). */
  restorePlaceholders = false,
): Router {
  const router = express.Router();
  const waiting = llmConfigured
    ? {}
    : { notice: 'no LLM configured: queued investigations wait until one is (set OPENAI_API_KEY or OPENAI_BASE_URL)' };

  router.get('/', async (req, res) => {
    const { limit, offset, filter } = parseListQuery(req.query);
    const [items, queue] = await Promise.all([store.list(limit, offset, filter), waitingStats?.()]);
    res.json({ items, ...(queue ? { queue } : {}), ...waiting });
  });

  router.get('/:id', async (req, res) => {
    const stored = isInvestigationId(req.params.id) ? await store.get(req.params.id) : null;
    if (!stored) {
      res.status(404).json({ error: `no investigation ${clip(req.params.id, 64)}` });
      return;
    }
    const inv = restorePlaceholders ? await store.restored(stored) : stored;
    const { identity: _identity, linkHosts: _linkHosts, ...body } = inv;
    // People's verdicts on the RCA, oldest first (feedback-store.ts).
    const feedback = verdicts.feedback ? await verdicts.feedback.list(inv.id) : [];
    res.json({
      ...body,
      feedback,
      ...(verdicts.outcome ? { outcome: await verdicts.outcome(inv, feedback) } : {}),
      ...(inv.status === 'queued' ? waiting : {}),
    });
  });

  // The whole of a tool output that was too large to send the model (see toolCalls[].toolCallId).
  router.get('/:id/outputs/:toolCallId', async (req, res) => {
    const text = await store.getOutput(req.params.id, req.params.toolCallId);
    if (text === null) {
      res.status(404).json({ error: `no kept output for tool call ${clip(req.params.toolCallId, 256)}` });
      return;
    }
    res.type('text/plain; charset=utf-8').send(text);
  });
  return router;
}
