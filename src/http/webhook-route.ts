import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RedisClient } from '../redis/redis-connections.js';
import type { Logger } from '../log.js';
import type { Intake } from '../queue/intake-queue.js';
import type { TicketDecision, TicketFeedback, TicketRef, WebhookHandler } from '../registration/source.js';
import type { DecideReply } from '../actions/decide-calls.js';
import type { DeployListener } from '../records/deploy-event.js';
import { deployReceiver } from './deploy-events.js';
import { keysOf } from '../redis/keys.js';
import { noMetrics, type Metrics, type WebhookOutcome } from '../observability/metrics.js';
import { errorReply } from './error-handler.js';
import { readRawBody } from './read-raw-body.js';
import { sendJson } from './send-json.js';
import { receive, type DeliveryIds, type ReceiveDeps, type WebhookReply } from './webhook-receive.js';

export interface WebhookRouteDeps {
  intake: Intake;
  redis: RedisClient;
  log: Logger;
  bodyLimitBytes: number;
  /** How long a vendor's delivery id is remembered, to drop replays. */
  deliveryTtlSeconds: number;
  /** Counts each delivery by source and outcome, and times it. */
  metrics?: Metrics;
  /** Decides pending calls of an issue's investigation (ticket comments); without it such comments are ignored. */
  decide?: (issue: TicketRef, decisions: TicketDecision[]) => Promise<DecideReply>;
  /** Records a verdict on an issue's RCA (ticket comments); without it such comments are ignored. */
  rate?: (issue: TicketRef, feedback: TicketFeedback) => Promise<DecideReply>;
  /** Told of every deploy once (the health checks' afterDeploy runs); without it a deploy is logged and taken. */
  onDeploy?: DeployListener;
}

/** One mounted source as the HTTP side sees it: on with a handler, or off with the reason. */
export type MountedWebhook = { name: string; handler: WebhookHandler } | { name: string; offReason: string };

const PREFIX = '/webhooks/';

/**
 * POST /webhooks/<name> for every source: 404 (with why) for a source that is off, 405 for another
 * method, else receive() (webhook-receive.ts) decides the answer and this writes it, in one place,
 * and counts it. Plain node:http, no framework: this is the path a storm takes, and every microsecond
 * spent per delivery is one the claim does not get (docs/benchmarks.md). Returns false for any other path.
 */
export function webhookHandler(
  mounted: readonly MountedWebhook[],
  deps: WebhookRouteDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const byName = new Map<string, MountedWebhook>(mounted.map((m) => [m.name.toLowerCase(), m]));
  const metrics = deps.metrics ?? noMetrics;
  const receiveDeps: ReceiveDeps = {
    log: deps.log,
    accept: (issues) => deps.intake.accept(issues),
    deliveries: redisDeliveryIds(deps.redis, deps.deliveryTtlSeconds),
    decide: deps.decide,
    rate: deps.rate,
    deployed: deployReceiver(deps.redis, deps.log, deps.onDeploy),
  };
  return (req, res) => {
    const m = match(req.url ?? '', byName);
    if (!m) return false;
    const started = performance.now();
    void answer(m, req, deps.bodyLimitBytes, receiveDeps).then((reply) => {
      req.resume(); // whatever of the body was not read is dropped, so the answer reaches the sender
      const outcome = write(res, reply, deps.log, PREFIX + m.name);
      metrics.webhookDelivery(m.name, outcome, (performance.now() - started) / 1000);
    });
    return true;
  };
}

async function answer(
  m: MountedWebhook,
  req: IncomingMessage,
  bodyLimitBytes: number,
  deps: ReceiveDeps,
): Promise<WebhookReply> {
  if (!('handler' in m))
    return { status: 404, body: { error: `source ${m.name} is off: ${m.offReason}` }, outcome: 'source_off' };
  if (req.method !== 'POST')
    return { status: 405, body: { error: 'use POST' }, headers: { allow: 'POST' }, outcome: 'rejected_method' };
  return receive(
    m.handler,
    {
      source: m.name,
      headers: lowerHeaders(req),
      remoteAddress: req.socket.remoteAddress,
      readBody: () => readRawBody(req, bodyLimitBytes),
    },
    deps,
  );
}

/**
 * The one place a webhook's answer is written: JSON, or an empty body. A body that cannot be serialised
 * (a source's bug) becomes errorReply's 500, counted as an error. Returns the outcome to count.
 */
function write(res: ServerResponse, reply: WebhookReply, log: Logger, path: string): WebhookOutcome {
  try {
    if (reply.body === undefined) res.writeHead(reply.status, { ...reply.headers, 'content-length': '0' }).end();
    else sendJson(res, reply.status, reply.body, reply.headers);
    return reply.outcome;
  } catch (err) {
    const { status, body } = errorReply(err, log, path);
    if (res.headersSent) res.destroy();
    else sendJson(res, status, body);
    return 'error';
  }
}

/** Delivery ids in Redis, each remembered for ttlSeconds. */
export function redisDeliveryIds(redis: RedisClient, ttlSeconds: number): DeliveryIds {
  const keys = keysOf(redis);
  return {
    seen: async (source, id) => (await redis.exists(keys.delivery(source, id))) > 0,
    remember: async (source, id) => {
      await redis.set(keys.delivery(source, id), '1', 'EX', ttlSeconds);
    },
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

/** Node names headers in lower case already; a copy without a prototype, so no header name reaches Object's. */
function lowerHeaders(req: IncomingMessage): Record<string, string | undefined> {
  const out = Object.create(null) as Record<string, string | undefined>;
  const raw = req.headers;
  for (const k in raw) {
    const v = raw[k];
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}
