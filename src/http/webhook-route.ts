import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RedisClient } from '../redis/redis-connections.js';
import type { Logger } from '../log.js';
import type { Intake } from '../queue/intake-queue.js';
import type { Delivery, WebhookHandler } from '../registration/source.js';
import { keysOf } from '../redis/keys.js';
import { errorReply } from './error-handler.js';
import { parseJsonBody } from './read-json-body.js';
import { readRawBody } from './read-raw-body.js';
import { sendJson } from './send-json.js';

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
const PREFIX = '/webhooks/';

/**
 * POST /webhooks/<name> for every source, in one order: source on (404 with why) → JSON content
 * type (415) → header credentials (401, before the body is read or inflated) → size (413) →
 * signature on the raw body (401) → replayed delivery id (200, nothing done) → JSON and schema
 * (400 naming the field) → intake. 200 only once everything is in Redis; Redis failures are 5xx.
 *
 * Plain node:http, no framework: this is the path a storm takes, and every microsecond spent per
 * delivery is one the claim does not get (docs/benchmarks.md). Returns false for any other path.
 */
export function webhookHandler(mounted: readonly MountedWebhook[], deps: WebhookRouteDeps): (req: IncomingMessage, res: ServerResponse) => boolean {
  const byName = new Map<string, MountedWebhook>(mounted.map((m) => [m.name.toLowerCase(), m]));
  return (req, res) => {
    const m = match(req.url ?? '', byName);
    if (!m) return false;
    if (!('handler' in m)) sendJson(res, 404, { error: `source ${m.name} is off: ${m.offReason}` });
    else if (req.method !== 'POST') sendJson(res, 405, { error: 'use POST' }, { allow: 'POST' });
    else {
      receive(m.name, m.handler, req, res, deps).catch((err: unknown) => {
        const { status, body } = errorReply(err, deps.log, PREFIX + m.name);
        if (!res.headersSent) sendJson(res, status, body);
        else res.destroy();
      });
    }
    return true;
  };
}

/** The source a path names, compared as express would (case-insensitive, one trailing slash, any query). */
function match(url: string, byName: Map<string, MountedWebhook>): MountedWebhook | undefined {
  if (url.length < PREFIX.length || url.slice(0, PREFIX.length).toLowerCase() !== PREFIX) return undefined;
  const q = url.indexOf('?');
  let name = url.slice(PREFIX.length, q < 0 ? undefined : q);
  if (name.endsWith('/')) name = name.slice(0, -1);
  return byName.get(name.toLowerCase());
}

async function receive(name: string, h: WebhookHandler, req: IncomingMessage, res: ServerResponse, deps: WebhookRouteDeps): Promise<void> {
  const refuse = (status: number, error: string, reason = error) => {
    deps.log.warn({ source: name, ip: req.socket.remoteAddress, status, reason }, 'webhook rejected');
    req.resume();
    sendJson(res, status, { error });
  };
  if (!JSON_TYPE.test(req.headers['content-type'] ?? '')) return refuse(415, 'expected Content-Type: application/json');
  const headers = lowerHeaders(req);
  const verdict = h.checkHeaders?.(headers);
  if (verdict && !verdict.ok) return refuse(401, 'unauthorized');
  const delivery: Delivery = { headers, rawBody: await readRawBody(req, deps.bodyLimitBytes) };
  const signed = await h.verify?.(delivery);
  if (signed && !signed.ok) return refuse(401, 'unauthorized', `signature: ${signed.reason}`);
  const deliveryId = h.deliveryId?.(headers);
  const seenKey = deliveryId ? keysOf(deps.redis).delivery(name, deliveryId) : null;
  if (seenKey && (await deps.redis.exists(seenKey))) {
    deps.log.info({ source: name, deliveryId }, 'webhook ignored: delivery already handled');
    return sendJson(res, 200, { ignored: 'delivery already handled', queued: [], duplicates: [], resolved: [] });
  }
  const outcome = await h.handle(parseJsonBody(delivery.rawBody), delivery);
  if (outcome.kind === 'reply') return sendJson(res, outcome.status, outcome.body);
  const body = outcome.kind === 'issues'
    ? { ...(await deps.intake.accept(outcome.issues)), ...outcome.extra }
    : { ignored: outcome.reason, queued: [], duplicates: [], resolved: [] };
  if (seenKey) await deps.redis.set(seenKey, '1', 'EX', deps.deliveryTtlSeconds);
  if (deps.log.isLevelEnabled('info')) {
    deps.log.info({ source: name, deliveryId, ...(outcome.kind === 'issues' ? outcome.log : { ignored: outcome.reason }), ...counts(body) }, 'webhook accepted');
  }
  sendJson(res, 200, body);
}

/** Node names headers in lower case already; a copy without a prototype, so no header name reaches Object's. */
function lowerHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = Object.create(null);
  const raw = req.headers;
  for (const k in raw) {
    const v = raw[k];
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function counts(body: { queued?: unknown[]; duplicates?: unknown[]; resolved?: unknown[] }) {
  return { queued: body.queued?.length ?? 0, duplicates: body.duplicates?.length ?? 0, resolved: body.resolved?.length ?? 0 };
}
