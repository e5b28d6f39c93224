import express, { type Router } from 'express';
import type { BudgetGuard } from '../budget/budget-guard.js';
import type { UsageLedger } from '../budget/usage-ledger.js';

/** GET /api/usage?days=7: tokens and cost per UTC day (newest first), and where each budget stands. */
export function usageRouter(ledger: UsageLedger, budgets: BudgetGuard): Router {
  const router = express.Router();
  router.get('/', async (req, res) => {
    const n = Number(req.query.days);
    const days = Number.isInteger(n) ? Math.min(400, Math.max(1, n)) : 7;
    const [perDay, limits] = await Promise.all([ledger.days(days), budgets.status()]);
    res.json({ currency: ledger.currency, days: perDay, budgets: withReached(limits) });
  });
  return router;
}

/** Budget scopes with `reached` set where new work waits. */
export function withReached(limits: Array<{ scope: string; used: number; limit: number }>) {
  return limits.map((l) => ({ ...l, reached: l.used >= l.limit }));
}
