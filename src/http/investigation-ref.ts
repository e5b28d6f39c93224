import type { RequestHandler } from 'express';
import { clip } from '../log-safe.js';
import { isInvestigationId } from '../redis/keys.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { ambiguityText, resolveInvestigationId } from '../store/id-prefix.js';

/**
 * Mounted on /api/investigations before its routers: the id in `/:id` and `/:id/...` may be a short one
 * (its first 8 or more characters) or a re-run's runId; it is resolved here and the path rewritten
 * with the whole id, so every route below sees a UUID. An ambiguous prefix answers 409 with the
 * candidates; a reference that cannot be an id, or names none, 404 saying which.
 */
export function investigationRef(redis: RedisClient): RequestHandler {
  return async (req, res, next) => {
    const match = /^\/([^/?]+)(.*)$/s.exec(req.url);
    if (!match) return next();
    const [, raw, rest] = match as unknown as [string, string, string];
    const ref = safeDecode(raw);
    if (isInvestigationId(ref)) return next();
    const found = await resolveInvestigationId(redis, ref);
    if (found.kind === 'found') {
      req.url = `/${found.id}${rest}`;
      return next();
    }
    if (found.kind === 'ambiguous') {
      res.status(409).json({
        error: ambiguityText(clip(ref, 64), found.candidates, found.more),
        candidates: found.candidates,
      });
      return;
    }
    res.status(404).json({ error: `no investigation ${clip(ref, 64)}: ${found.reason}` });
  };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
