import express, { type Router } from 'express';
import type { RedisClient } from '../redis/redis-connections.js';
import { qualityReport, type FeedbackReader } from '../quality/quality-report.js';
import { wrongAnswers } from '../quality/wrong-answers.js';
import { parseDays } from '../quality/quality-days.js';

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
