import type { Logger } from '../log.js';
import type { Issue } from '../issue.js';
import type { IntakeOutcome } from '../queue/intake-queue.js';
import type {
  Delivery,
  DeliveryOutcome,
  TicketDecision,
  TicketFeedback,
  TicketRef,
  WebhookHandler,
} from '../registration/source.js';
import type { DecideReply } from '../actions/decide-calls.js';
import type { DeployEvent } from '../records/deploy-event.js';
import type { DeployReception } from './deploy-events.js';
import type { WebhookOutcome } from '../observability/metrics.js';
import { errorReply } from './error-handler.js';
import { parseJsonBody } from './read-json-body.js';

/** One delivery as a transport hands it over: nothing of node:http in it. */
export interface WebhookDelivery {
  /** The source's mounted name. */
  source: string;
  /** Header names in lower case, in a record without a prototype. */
  headers: Delivery['headers'];
  /** Where the delivery came from, for the log of a refusal. */
  remoteAddress?: string;
  /** The raw body (inflated, size-limited, a 4xx HttpStatusError otherwise): called only once the headers pass. */
  readBody: () => Promise<Buffer>;
}

/** The one answer to a delivery: what to send (an undefined body is an empty one) and how to count it. */
export interface WebhookReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  outcome: WebhookOutcome;
}

/** The vendor delivery ids already handled, per source: a replay is answered and not acted on. */
export interface DeliveryIds {
  seen(source: string, id: string): Promise<boolean>;
  remember(source: string, id: string): Promise<void>;
}

export interface ReceiveDeps {
  log: Logger;
  /** Takes a delivery's issues in (claimed and queued, or resolved): Intake.accept. */
  accept: (issues: Issue[]) => Promise<IntakeOutcome>;
  deliveries: DeliveryIds;
  /** Decides pending calls of an issue's investigation (ticket comments); without it such comments are ignored. */
  decide?: (issue: TicketRef, decisions: TicketDecision[]) => Promise<DecideReply>;
  /** Records a verdict on an issue's RCA (ticket comments); without it such comments are ignored. */
  rate?: (issue: TicketRef, feedback: TicketFeedback) => Promise<DecideReply>;
  /** Tells a deploy to the deploy listener once (deploy-events.ts); without it deploys are ignored. */
  deployed?: (event: DeployEvent) => Promise<DeployReception>;
}

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;
const EMPTY = { queued: [], duplicates: [], resolved: [] };

/**
 * One delivery to an on source, in one order: JSON content type (415) → header credentials (401, before
 * the body is read or inflated) → size (413, the reader's) → signature on the raw body (401) → replayed
 * delivery id (200, nothing done) → JSON and schema (400 naming the field) → intake. 200 only once
 * everything is stored; a store that cannot be reached is a 503 (errorReply). Never rejects: every
 * failure is an answer, and the caller writes it (octokit/webhooks.js's verifyAndReceive, transport-free).
 */
export async function receive(h: WebhookHandler, d: WebhookDelivery, deps: ReceiveDeps): Promise<WebhookReply> {
  try {
    return await receiveOrThrow(h, d, deps);
  } catch (err) {
    const { status, body } = errorReply(err, deps.log, `/webhooks/${d.source}`);
    return { status, body, outcome: outcomeOfStatus(status) };
  }
}

async function receiveOrThrow(h: WebhookHandler, d: WebhookDelivery, deps: ReceiveDeps): Promise<WebhookReply> {
  const name = d.source;
  const refuse = (status: number, error: string, reason = error): WebhookReply => {
    deps.log.warn({ source: name, ip: d.remoteAddress, status, reason }, 'webhook rejected');
    return { status, body: { error }, outcome: outcomeOfStatus(status) };
  };
  if (!(h.accepts ?? JSON_TYPE).test(d.headers['content-type'] ?? ''))
    return refuse(415, h.accepts ? 'unexpected Content-Type' : 'expected Content-Type: application/json');
  const verdict = h.checkHeaders?.(d.headers);
  // The source's reason (missing versus wrong credentials; never the credential) goes to the log only.
  if (verdict && !verdict.ok)
    return refuse(401, verdict.fix ? `unauthorized: ${verdict.fix}` : 'unauthorized', verdict.reason);
  const delivery: Delivery = { headers: d.headers, rawBody: await d.readBody() };
  const signed = await h.verify?.(delivery);
  if (signed && !signed.ok) return refuse(401, 'unauthorized', `signature: ${signed.reason}`);
  const deliveryId = h.deliveryId?.(d.headers);
  if (deliveryId && (await deps.deliveries.seen(name, deliveryId))) {
    deps.log.info({ source: name, deliveryId }, 'webhook ignored: delivery already handled');
    return { status: 200, body: { ignored: 'delivery already handled', ...EMPTY }, outcome: 'duplicate' };
  }
  const outcome = await h.handle(h.parse ? h.parse(delivery.rawBody) : parseJsonBody(delivery.rawBody), delivery);
  if (outcome.kind === 'reply') {
    const replied = outcome.status >= 400 ? outcomeOfStatus(outcome.status) : 'replied';
    return { status: outcome.status, body: outcome.body, outcome: replied };
  }
  const remember = () => (deliveryId ? deps.deliveries.remember(name, deliveryId) : Promise.resolve());
  if (outcome.kind === 'decide') return decide(name, outcome, deps, remember);
  if (outcome.kind === 'feedback') return rate(name, outcome, deps, remember);
  if (outcome.kind === 'deploy') return deploy(name, outcome.deploy, deps, remember);
  return intake(name, outcome, deliveryId, deps, remember);
}

/** Issues into intake (or a source's reason to ignore the delivery): 200 with what was queued, once stored. */
async function intake(
  name: string,
  outcome: Extract<DeliveryOutcome, { kind: 'issues' | 'ignored' }>,
  deliveryId: string | undefined,
  deps: ReceiveDeps,
  remember: () => Promise<void>,
): Promise<WebhookReply> {
  const body =
    outcome.kind === 'issues'
      ? { ...(await deps.accept(outcome.issues)), ...outcome.extra }
      : { ignored: outcome.reason, ...EMPTY };
  await remember();
  const c = counts(body);
  if (deps.log.isLevelEnabled('info')) {
    const said = outcome.kind === 'issues' ? outcome.log : { ignored: outcome.reason };
    deps.log.info({ source: name, deliveryId, ...said, ...c }, 'webhook accepted');
  }
  return { status: 200, body, outcome: deliveryOutcome(outcome.kind, c) };
}

/**
 * A ticket comment's decision, through the same path as the API's: answered 200 whatever was decided (the vendor
 * must not redeliver a comment that named no pending call), with the outcome in the body and the log.
 */
async function decide(
  name: string,
  outcome: Extract<DeliveryOutcome, { kind: 'decide' }>,
  deps: ReceiveDeps,
  remember: () => Promise<void>,
): Promise<WebhookReply> {
  const calls = outcome.decisions.map((d) => d.toolCallId);
  if (!deps.decide) {
    deps.log.info({ source: name, calls }, 'webhook ignored: approvals are not taken by this process');
    return { status: 200, body: { ignored: 'approvals are not taken here' }, outcome: 'ignored' };
  }
  const reply = await deps.decide(outcome.issue, outcome.decisions);
  await remember();
  const decided = reply.status === 202;
  deps.log.info(
    { source: name, identity: outcome.issue.identity, calls, status: reply.status, ...reply.body },
    decided ? 'decision from a ticket comment recorded' : 'decision from a ticket comment not recorded',
  );
  return { status: 200, body: { decided, ...reply.body }, outcome: decided ? 'accepted' : 'ignored' };
}

/**
 * A ticket comment's verdict on the RCA, through the API's path: 200 whatever became of it (the vendor must not
 * redeliver), the short reply on the ticket only when it changed something.
 */
async function rate(
  name: string,
  outcome: Extract<DeliveryOutcome, { kind: 'feedback' }>,
  deps: ReceiveDeps,
  remember: () => Promise<void>,
): Promise<WebhookReply> {
  const { verdict, by } = outcome.feedback;
  if (!deps.rate) {
    deps.log.info({ source: name, verdict }, 'webhook ignored: verdicts are not taken by this process');
    return { status: 200, body: { ignored: 'verdicts are not taken here' }, outcome: 'ignored' };
  }
  const reply = await deps.rate(outcome.issue, outcome.feedback);
  const changed = reply.status === 200 && reply.body.changed === true;
  await remember();
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
  return { status: 200, body: { rated: changed, ...said }, outcome: changed ? 'accepted' : 'ignored' };
}

/** A deploy, told once: 202 whether new or seen before (a sender's retry must not be refused), which the body says. */
async function deploy(
  name: string,
  event: DeployEvent,
  deps: ReceiveDeps,
  remember: () => Promise<void>,
): Promise<WebhookReply> {
  if (!deps.deployed) {
    deps.log.info({ source: name, deploy: event.id }, 'webhook ignored: deploys are not taken by this process');
    return { status: 200, body: { ignored: 'deploys are not taken here' }, outcome: 'ignored' };
  }
  const reception = await deps.deployed(event);
  await remember();
  const duplicate = reception === 'duplicate';
  if (duplicate) deps.log.info({ source: name, deploy: event.id }, 'webhook: deploy already seen');
  const body = { deploy: event.id, service: event.service, duplicate };
  return { status: 202, body, outcome: duplicate ? 'duplicate' : 'accepted' };
}

/** A refusal's or an error's status, as a delivery outcome. */
export function outcomeOfStatus(status: number): WebhookOutcome {
  if (status === 401 || status === 403) return 'rejected_auth';
  if (status === 413) return 'too_large';
  if (status === 415) return 'rejected_content_type';
  if (status === 400 || status === 422) return 'rejected_schema';
  return 'error';
}

/** Ignored by the source; a repeat when nothing in it was new (no issue queued or resolved); else accepted. */
function deliveryOutcome(kind: 'issues' | 'ignored', c: ReturnType<typeof counts>): WebhookOutcome {
  if (kind === 'ignored') return 'ignored';
  return c.queued === 0 && c.resolved === 0 && c.duplicates > 0 ? 'duplicate' : 'accepted';
}

function counts(body: { queued?: unknown[]; duplicates?: unknown[]; resolved?: unknown[]; skipped?: unknown[] }) {
  return {
    queued: body.queued?.length ?? 0,
    duplicates: body.duplicates?.length ?? 0,
    resolved: body.resolved?.length ?? 0,
    skipped: body.skipped?.length ?? 0,
  };
}
