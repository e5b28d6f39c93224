import type { ErrorRequestHandler } from 'express';
import { InputError } from '../errors.js';
import type { Logger } from '../log.js';

/**
 * Bad input → 4xx naming the field; anything else (Redis down, a bug) → 503/500, so senders
 * that retry on 5xx (Alertmanager, PagerDuty) deliver again and nothing accepted is lost.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (err instanceof InputError) {
      log.warn({ path: req.path, field: err.field, err: err.message }, 'request rejected: bad input');
      res.status(400).json({ error: err.message, field: err.field });
      return;
    }
    const status = (err as { status?: number }).status;
    if (status === 413 || (err as { type?: string }).type === 'entity.too.large') {
      log.warn({ path: req.path }, 'request rejected: body too large');
      res.status(413).json({ error: 'request body too large' });
      return;
    }
    if (typeof status === 'number' && status >= 400 && status < 500) {
      res.status(status).json({ error: (err as Error).message });
      return;
    }
    log.error({ err: (err as Error).message, path: req.path }, 'request failed');
    res.status(503).json({ error: 'temporarily unable to store the request; retry' });
  };
}
