import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler } from 'express';
import { InputError, RetryableError } from '../errors.js';
import type { Logger } from '../log.js';
import { clip } from '../log-safe.js';
import { isRedisUnavailable } from './redis-unavailable.js';

export interface ErrorReply {
  status: number;
  body: Record<string, string>;
}

/**
 * Bad input → 4xx naming the field. Redis unreachable, or a service the request needs saying
 * "later" (a RetryableError) → 503, so senders that retry on 5xx (Alertmanager, PagerDuty) deliver
 * again and nothing accepted is lost. Anything else is a bug → 500 with a request id, which the
 * log line (with the stack) carries too; the reply never shows the stack or the message.
 * The one mapping of errors to answers, for the API and the webhooks alike.
 */
export function errorReply(err: unknown, log: Logger, path: string): ErrorReply {
  if (err instanceof InputError) {
    // Field paths and messages can quote vendor keys of any length: capped in the log and the reply.
    log.warn({ path: clip(path), field: clip(err.field), err: clip(err.message, 500) }, 'request rejected: bad input');
    return { status: 400, body: { error: clip(err.message, 1000), field: clip(err.field, 500) } };
  }
  const status = (err as { status?: number }).status;
  if (status === 413 || (err as { type?: string }).type === 'entity.too.large') {
    log.warn({ path: clip(path) }, 'request rejected: body too large');
    return { status: 413, body: { error: 'request body too large' } };
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { status, body: { error: (err as Error).message } };
  }
  if (err instanceof RetryableError || isRedisUnavailable(err)) {
    log.error({ err: clip(String((err as Error).message), 1000), path: clip(path) }, 'request failed');
    return { status: 503, body: { error: 'temporarily unable to store the request; retry' } };
  }
  const requestId = randomUUID();
  log.error(
    {
      requestId,
      err: clip(String((err as Error | undefined)?.message ?? err), 1000),
      stack: clip(String((err as Error | undefined)?.stack), 4000),
      path: clip(path),
    },
    'request failed: internal error',
  );
  return { status: 500, body: { error: 'internal error', requestId } };
}

/** errorReply as express's last handler. */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const { status, body } = errorReply(err, log, req.path);
    res.status(status).json(body);
  };
}
