import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RedisClient } from '../redis/redis-connections.js';
import type { Logger } from '../log.js';
import type { Intake } from '../queue/intake-queue.js';
import type {
  Delivery,
  DeliveryOutcome,
  TicketDecision,
  TicketFeedback,
  TicketRef,
  WebhookHandler,
} from '../registration/source.js';
import type { DecideReply } from '../actions/decide-calls.js';
import { keysOf } from '../redis/keys.js';
import { noMetrics, type Metrics, type WebhookOutcome } from '../observability/metrics.js';
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
  /** Counts each delivery by source and outcome, and times it. */
  metrics?: Metrics;
  /** Decides pending calls of an issue's investigation (ticket comments); without it such comments are ignored. */
  decide?: (issue: TicketRef, decisions: TicketDecision[]) => Promise<DecideReply>;
  /** Records a verdict on an issue's RCA (ticket comments); without it such comments are ignored. */
  rate?: (issue: TicketRef, feedback: TicketFeedback) => Promise<DecideReply>;
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
export function webhookHandler(
  mounted: readonly MountedWebhook[],
  deps: WebhookRouteDeps,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const byName = new Map<string, MountedWebhook>(mounted.map((m) => [m.name.toLowerCase(), m]));
  const metrics = deps.metrics ?? noMetrics;
  return (req, res) => {
    const m = match(req.url ?? '', byName);
    if (!m) return false;
    const started = performance.now();
    const record = (outcome: WebhookOutcome) =>
      metrics.webhookDelivery(m.name, outcome, (performance.now() - started) / 1000);
    if (!('handler' in m)) {
      sendJson(res, 404, { error: `source ${m.name} is off: ${m.offReason}` });
      record('source_off');
    } else if (req.method !== 'POST') {
      sendJson(res, 405, { error: 'use POST' }, { allow: 'POST' });
      record('rejected_method');
    } else {
      receive(m.name, m.handler, req, res, deps).then(record, (err: unknown) => {
        const { status, body } = errorReply(err, deps.log, PREFIX + m.name);
        if (!res.headersSent) sendJson(res, status, body);
        else res.destroy();
        record(outcomeOfStatus(status));
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

/** A refusal's or an error's status, as a delivery outcome. */
function outcomeOfStatus(status: number): WebhookOutcome {
  if (status === 401 || status === 403) return 'rejected_auth';
  if (status === 413) return 'too_large';
  if (status === 415) return 'rejected_content_type';
  if (status === 400 || status === 422) return 'rejected_schema';
  return 'error';
}

async function receive(
  name: string,
  h: WebhookHandler,
  req: IncomingMessage,
  res: ServerResponse,
  deps: WebhookRouteDeps,
): Promise<WebhookOutcome> {
  const refuse = (status: number, error: string, reason = error): WebhookOutcome => {
    deps.log.warn({ source: name, ip: req.socket.remoteAddress, status, reason }, 'webhook rejected');
    req.resume();
    sendJson(res, status, { error });
    return outcomeOfStatus(status);
  };
  if (!(h.accepts ?? JSON_TYPE).test(req.headers['content-type'] ?? ''))
    return refuse(415, h.accepts ? 'unexpected Content-Type' : 'expected Content-Type: application/json');
  const headers = lowerHeaders(req);
  const verdict = h.checkHeaders?.(headers);
  // The source's reason (missing versus wrong credentials; never the credential) goes to the log only.
  if (verdict && !verdict.ok)
    return refuse(401, verdict.fix ? `unauthorized: ${verdict.fix}` : 'unauthorized', verdict.reason);
  const delivery: Delivery = { headers, rawBody: await readRawBody(req, deps.bodyLimitBytes) };
  const signed = await h.verify?.(delivery);
  if (signed && !signed.ok) return refuse(401, 'unauthorized', `signature: ${signed.reason}`);
  const deliveryId = h.deliveryId?.(headers);
  const seenKey = deliveryId ? keysOf(deps.redis).delivery(name, deliveryId) : null;
  if (seenKey && (await deps.redis.exists(seenKey))) {
    deps.log.info({ source: name, deliveryId }, 'webhook ignored: delivery already handled');
    sendJson(res, 200, { ignored: 'delivery already handled', queued: [], duplicates: [], resolved: [] });
    return 'duplicate';
  }
  const outcome = await h.handle(h.parse ? h.parse(delivery.rawBody) : parseJsonBody(delivery.rawBody), delivery);
  if (outcome.kind === 'reply') {
    if (outcome.body === undefined) res.writeHead(outcome.status, { 'content-length': '0' }).end();
    else sendJson(res, outcome.status, outcome.body);
    return outcome.status >= 400 ? outcomeOfStatus(outcome.status) : 'replied';
  }
  if (outcome.kind === 'decide') return decide(name, outcome, res, deps, seenKey);
  if (outcome.kind === 'feedback') return rate(name, outcome, res, deps, seenKey);
  const body =
    outcome.kind === 'issues'
      ? { ...(await deps.intake.accept(outcome.issues)), ...outcome.extra }
      : { ignored: outcome.reason, queued: [], duplicates: [], resolved: [] };
  if (seenKey) await deps.redis.set(seenKey, '1', 'EX', deps.deliveryTtlSeconds);
  if (deps.log.isLevelEnabled('info')) {
    deps.log.info(
      {
        source: name,
        deliveryId,
        ...(outcome.kind === 'issues' ? outcome.log : { ignored: outcome.reason }),
        ...counts(body),
      },
      'webhook accepted',
    );
  }
  sendJson(res, 200, body);
  return deliveryOutcome(outcome.kind, body);
}

/**
 * A ticket comment's decision, through the same path as the API's: answered 200 whatever was decided (the vendor
 * must not redeliver a comment that named no pending call), with the outcome in the body and the log.
 */
async function decide(
  name: string,
  outcome: Extract<DeliveryOutcome, { kind: 'decide' }>,
  res: ServerResponse,
  deps: WebhookRouteDeps,
  seenKey: string | null,
): Promise<WebhookOutcome> {
  const calls = outcome.decisions.map((d) => d.toolCallId);
  if (!deps.decide) {
    deps.log.info({ source: name, calls }, 'webhook ignored: approvals are not taken by this process');
    sendJson(res, 200, { ignored: 'approvals are not taken here' });
    return 'ignored';
  }
  const reply = await deps.decide(outcome.issue, outcome.decisions);
  if (seenKey) await deps.redis.set(seenKey, '1', 'EX', deps.deliveryTtlSeconds);
  deps.log.info(
    { source: name, identity: outcome.issue.identity, calls, status: reply.status, ...reply.body },
    reply.status === 202 ? 'decision from a ticket comment recorded' : 'decision from a ticket comment not recorded',
  );
  sendJson(res, 200, { decided: reply.status === 202, ...reply.body });
  return reply.status === 202 ? 'accepted' : 'ignored';
}

/**
 * A ticket comment's verdict on the RCA, through the API's path: 200 whatever became of it (the vendor must not
 * redeliver), the short reply on the ticket only when it changed something.
 */
async function rate(
  name: string,
  outcome: Extract<DeliveryOutcome, { kind: 'feedback' }>,
  res: ServerResponse,
  deps: WebhookRouteDeps,
  seenKey: string | null,
): Promise<WebhookOutcome> {
  const { verdict, by } = outcome.feedback;
  if (!deps.rate) {
    deps.log.info({ source: name, verdict }, 'webhook ignored: verdicts are not taken by this process');
    sendJson(res, 200, { ignored: 'verdicts are not taken here' });
    return 'ignored';
  }
  const reply = await deps.rate(outcome.issue, outcome.feedback);
  const changed = reply.status === 200 && reply.body.changed === true;
  if (seenKey) await deps.redis.set(seenKey, '1', 'EX', deps.deliveryTtlSeconds);
  const { feedback: _all, ...said } = reply.body;
  deps.log.info(
    { source: name, identity: outcome.issue.identity, verdict, by: by.user, status: reply.status, ...said },
    changed ? 'verdict from a ticket comment recorded' : 'verdict from a ticket comment changed nothing',
  );
  if (changed && outcome.answer) {
    const id = typeof reply.body.investigation === 'string' ? reply.body.investigation.slice(0, 8) : '';
    // The reply is a courtesy: failing to post it is logged; the verdict stands and a redelivery changes nothing.
    await outcome
      .answer(`Thanks: your verdict **${verdict}** on investigation \`${id}\` is recorded.`)
      .catch((err: unknown) =>
        deps.log.warn(
          { source: name, err: err instanceof Error ? err.message : String(err) },
          'could not answer a verdict',
        ),
      );
  }
  sendJson(res, 200, { rated: changed, ...said });
  return changed ? 'accepted' : 'ignored';
}

/** Ignored by the source; a repeat when nothing in it was new (no issue queued or resolved); else accepted. */
function deliveryOutcome(
  kind: 'issues' | 'ignored',
  body: { queued?: unknown[]; resolved?: unknown[]; duplicates?: unknown[] },
): WebhookOutcome {
  if (kind === 'ignored') return 'ignored';
  const c = counts(body);
  return c.queued === 0 && c.resolved === 0 && c.duplicates > 0 ? 'duplicate' : 'accepted';
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

function counts(body: { queued?: unknown[]; duplicates?: unknown[]; resolved?: unknown[]; skipped?: unknown[] }) {
  return {
    queued: body.queued?.length ?? 0,
    duplicates: body.duplicates?.length ?? 0,
    resolved: body.resolved?.length ?? 0,
    skipped: body.skipped?.length ?? 0,
  };
}
