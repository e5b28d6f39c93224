import express, { type Router } from 'express';
import type { LimiterSnapshot, LlmRateLimiter } from '../llm/rate-limiter.js';

/** GET /api/limits: the model's rate limit, every process together: used against the limit, and who waits. */
export function limitsRouter(limiter: LlmRateLimiter): Router {
  const router = express.Router();
  router.get('/', async (_req, res) => {
    res.json({ llm: withReached(await limiter.snapshot()) });
  });
  return router;
}

/** For /readyz: the snapshot, or why it could not be read (readiness does not depend on it). */
export async function limiterDetail(limiter: LlmRateLimiter): Promise<ReturnType<typeof withReached> | string> {
  return limiter.snapshot().then(withReached, (err: Error) => `unknown: ${err.message}`);
}

/** `reached` when a limit (ours, or the provider's word) makes new requests wait now. */
export function withReached(s: LimiterSnapshot) {
  const full =
    (s.requestsPerMinute !== null && s.requestsUsed >= s.requestsPerMinute) ||
    (s.tokensPerMinute !== null && s.tokensUsed >= s.tokensPerMinute);
  return { ...s, reached: full || s.provider.blockedUntil !== null };
}
