import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler } from 'express';
import { InputError, RetryableError } from '../errors.js';
import type { Logger } from '../log.js';
import { clip } from '../log-safe.js';
import { isRedisUnavailable } from './redis-unavailable.js';

/**
 * Bad input → 4xx naming the field. Redis unreachable, or a service the request needs saying
 * "later" (a RetryableError) → 503, so senders that retry on 5xx (Alertmanager, PagerDuty) deliver
 * again and nothing accepted is lost. Anything else is a bug → 500 with a request id, which the
 * log line (with the stack) carries too; the reply never shows the stack or the message.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (err instanceof InputError) {
      // Field paths and messages can quote vendor keys of any length: capped in the log and the reply.
      log.warn({ path: clip(req.path), field: clip(err.field), err: clip(err.message, 500) }, 'request rejected: bad input');
      res.status(400).json({ error: clip(err.message, 1000), field: clip(err.field, 500) });
      return;
    }
    const status = (err as { status?: number }).status;
    if (status === 413 || (err as { type?: string }).type === 'entity.too.large') {
      log.warn({ path: clip(req.path) }, 'request rejected: body too large');
      res.status(413).json({ error: 'request body too large' });
      return;
    }
    if (typeof status === 'number' && status >= 400 && status < 500) {
      res.status(status).json({ error: (err as Error).message });
      return;
    }
    if (err instanceof RetryableError || isRedisUnavailable(err)) {
      log.error({ err: clip(String((err as Error).message), 1000), path: clip(req.path) }, 'request failed');
      res.status(503).json({ error: 'temporarily unable to store the request; retry' });
      return;
    }
    const requestId = randomUUID();
    log.error({ requestId, err: clip(String((err as Error).message ?? err), 1000), stack: clip(String((err as Error).stack), 4000), path: clip(req.path) }, 'request failed: internal error');
    res.status(500).json({ error: 'internal error', requestId });
  };
}
