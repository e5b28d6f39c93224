import express, { type Router } from 'express';
import { InputError } from '../errors.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { qualityReport, type FeedbackReader } from '../quality/quality-report.js';
import { wrongAnswers } from '../quality/wrong-answers.js';

/** The longest window GET /api/quality reads (the records' retention bounds it anyway). */
export const MAX_QUALITY_DAYS = 365;

/**
 * GET /api/quality?days=30: accuracy, cost per correct answer, time to resolve and recurrence of the
 * answers of the last `days` UTC days, overall and by source, alert and model (docs/quality.md).
 * GET /api/quality/wrong?days=30: the investigations judged wrong, with the root cause people stated
 * (what `lestrade eval record --feedback wrong` turns into eval cases).
 */
export function qualityRouter(redis: RedisClient, feedback: FeedbackReader): Router {
  const router = express.Router();
  router.get('/', async (req, res) => {
    res.json(await qualityReport(redis, feedback, parseDays(req.query)));
  });
  router.get('/wrong', async (req, res) => {
    res.json({ items: await wrongAnswers(redis, feedback, parseDays(req.query)) });
  });
  return router;
}

/** `days`: a whole number from 1 to MAX_QUALITY_DAYS, 30 when absent; anything else is an InputError naming it. */
export function parseDays(query: Record<string, unknown>): number {
  const raw = query.days;
  if (raw === undefined) return 30;
  const n = typeof raw === 'string' && /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(n >= 1 && n <= MAX_QUALITY_DAYS)) {
    const shown = typeof raw === 'string' ? `"${raw.slice(0, 32)}"` : 'a repeated value';
    throw new InputError('days', `${shown} is not a whole number of days from 1 to ${MAX_QUALITY_DAYS} (e.g. days=30)`);
  }
  return n;
}
