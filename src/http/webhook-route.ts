import express, { type Request, type Response, type Router } from 'express';
import type { RedisClient } from '../queue/redis-connections.js';
import type { Logger } from '../log.js';
import type { Intake } from '../queue/intake.js';
import type { Delivery, WebhookHandler } from '../source.js';
import { keys } from '../store/keys.js';
import { parseJsonBody } from './read-json-body.js';

export interface WebhookRouteDeps {
  intake: Intake;
  redis: RedisClient;
  log: Logger;
  bodyLimitBytes: number;
  /** How long a vendor's delivery id is remembered, to drop replays. */
  deliveryTtlSeconds: number;
}

/** One mounted source as the HTTP side sees it: on with a handler, or off with the reason. */
export type MountedWebhook = { name: string; handler: WebhookHandler } | { name: string; offReason: string };

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/**
 * POST /webhooks/<name> for every source, in one order: source on (404 with why) → JSON content
 * type (415) → header credentials (401, before the body is read or inflated) → size (413) →
 * signature on the raw body (401) → replayed delivery id (200, nothing done) → JSON and schema
 * (400 naming the field) → intake. 200 only once everything is in Redis; Redis failures are 5xx.
 */
export function webhookRouter(mounted: MountedWebhook, deps: WebhookRouteDeps): Router {
  const router = express.Router();
  const name = mounted.name;
  if (!('handler' in mounted)) {
    router.all('/', (_req, res) => { res.status(404).json({ error: `source ${name} is off: ${mounted.offReason}` }); });
    return router;
  }
  const h = mounted.handler;
  const refuse = (req: Request, res: Response, status: number, error: string) => {
    deps.log.warn({ source: name, ip: req.ip, status, reason: error }, 'webhook rejected');
    res.status(status).json({ error });
  };
  router.post('/', (req, res, next) => {
    if (!JSON_TYPE.test(req.get('content-type') ?? '')) return refuse(req, res, 415, 'expected Content-Type: application/json');
    const verdict = h.checkHeaders?.(lowerHeaders(req));
    if (verdict && !verdict.ok) return refuse(req, res, 401, 'unauthorized');
    next();
  }, express.raw({ type: () => true, limit: deps.bodyLimitBytes }), async (req, res) => {
    const delivery: Delivery = { headers: lowerHeaders(req), rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0) };
    const signed = await h.verify?.(delivery);
    if (signed && !signed.ok) {
      deps.log.warn({ source: name, ip: req.ip, reason: signed.reason }, 'webhook rejected: signature');
      res.status(401).json({ error: 'unauthorized' });
      return;
    }
    const deliveryId = h.deliveryId?.(delivery.headers);
    const seenKey = deliveryId ? keys.delivery(name, deliveryId) : null;
    if (seenKey && (await deps.redis.exists(seenKey))) {
      deps.log.info({ source: name, deliveryId }, 'webhook ignored: delivery already handled');
      res.status(200).json({ ignored: 'delivery already handled', queued: [], duplicates: [], resolved: [] });
      return;
    }
    const outcome = await h.handle(parseJsonBody(delivery.rawBody), delivery);
    if (outcome.kind === 'reply') {
      res.status(outcome.status).json(outcome.body);
      return;
    }
    const body = outcome.kind === 'issues'
      ? { ...(await deps.intake.accept(outcome.issues)), ...outcome.extra }
      : { ignored: outcome.reason, queued: [], duplicates: [], resolved: [] };
    if (seenKey) await deps.redis.set(seenKey, '1', 'EX', deps.deliveryTtlSeconds);
    deps.log.info({ source: name, deliveryId, ...(outcome.kind === 'issues' ? outcome.log : { ignored: outcome.reason }), ...counts(body) }, 'webhook accepted');
    res.status(200).json(body);
  });
  router.all('/', (_req, res) => { res.status(405).set('allow', 'POST').json({ error: 'use POST' }); });
  return router;
}

function lowerHeaders(req: Request): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = Object.create(null);
  for (const [k, v] of Object.entries(req.headers)) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function counts(body: { queued?: unknown[]; duplicates?: unknown[]; resolved?: unknown[] }) {
  return { queued: body.queued?.length ?? 0, duplicates: body.duplicates?.length ?? 0, resolved: body.resolved?.length ?? 0 };
}
