import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/errors.js';
import { HttpStatusError } from '../../../../src/http/read-raw-body.js';
import { receive, type DeliveryIds, type ReceiveDeps } from '../../../../src/http/webhook-receive.js';
import type { Issue } from '../../../../src/issue.js';
import type { IntakeOutcome } from '../../../../src/queue/intake-queue.js';
import type { DeliveryOutcome, TicketDecision, WebhookHandler } from '../../../../src/registration/source.js';
import type { DecideReply } from '../../../../src/actions/decide-calls.js';
import { anIssue } from '../../../helpers/issue.js';
import { captureLog } from '../../../helpers/log-capture.js';

/**
 * receive() without HTTP: a delivery is headers, a lazy body reader and where it came from; the answer
 * is {status, body, outcome}. The ports (intake, delivery ids, decisions) are in memory and record calls.
 */

const JSON_HEADERS = { 'content-type': 'application/json', 'x-token': 'ok', 'x-delivery': 'd-1' };

interface World {
  deps: ReceiveDeps;
  lines: Array<Record<string, unknown>>;
  /** What happened, in order: body reads, seen checks, accepts, remembers, decisions. */
  calls: string[];
  remembered: Set<string>;
}

function world(opts: { accept?: (issues: Issue[]) => Promise<IntakeOutcome>; decide?: boolean } = {}): World {
  const { lines, log } = captureLog('info');
  const calls: string[] = [];
  const remembered = new Set<string>();
  const deliveries: DeliveryIds = {
    seen: async (source, id) => {
      calls.push(`seen ${source}/${id}`);
      return remembered.has(`${source}/${id}`);
    },
    remember: async (source, id) => {
      calls.push(`remember ${source}/${id}`);
      remembered.add(`${source}/${id}`);
    },
  };
  const accept =
    opts.accept ??
    (async (issues: Issue[]) => {
      calls.push(`accept ${issues.map((i) => i.identity).join(',')}`);
      return { queued: issues.map((i) => `inv-${i.identity}`), duplicates: [], resolved: [] };
    });
  const decide = async (ref: { identity: string }, decisions: TicketDecision[]): Promise<DecideReply> => {
    calls.push(`decide ${ref.identity} ${decisions.map((d) => d.toolCallId).join(',')}`);
    return ref.identity === 'T-ok'
      ? { status: 202, body: { investigationId: 'inv-1' } }
      : { status: 409, body: { error: 'investigation is not awaiting approval' } };
  };
  return { deps: { log, accept, deliveries, ...(opts.decide ? { decide } : {}) }, lines, calls, remembered };
}

/** A source taking JSON with a token header, a signature over the raw body, and delivery ids. */
function source(outcome: (body: unknown) => DeliveryOutcome | Promise<DeliveryOutcome>): WebhookHandler {
  return {
    checkHeaders: (h) =>
      h['x-token'] === 'ok' ? { ok: true } : { ok: false, reason: 'wrong token', fix: 'set X-Token' },
    verify: ({ rawBody }) => (rawBody.includes('forged') ? { ok: false, reason: 'digest differs' } : { ok: true }),
    deliveryId: (h) => h['x-delivery'],
    handle: (body) => outcome(body),
  };
}

const openIssues = (body: unknown): DeliveryOutcome => ({
  kind: 'issues',
  issues: ((body as { open?: string[] }).open ?? []).map((n) => anIssue(`T-${n}`)),
  log: { tickets: (body as { open?: string[] }).open },
});

function delivery(w: World, body: string | Error, headers: Record<string, string> = JSON_HEADERS) {
  const h = Object.assign(Object.create(null) as Record<string, string | undefined>, headers);
  return {
    source: 'tickets',
    headers: h,
    remoteAddress: '192.0.2.7',
    readBody: async () => {
      w.calls.push('read body');
      if (body instanceof Error) throw body;
      return Buffer.from(body);
    },
  };
}

describe('receive: refusals, before the body where the headers decide', () => {
  it('refuses another content type with 415 and never reads the body', async () => {
    const w = world();
    const d = delivery(w, '{}', { ...JSON_HEADERS, 'content-type': 'text/plain' });
    expect(await receive(source(openIssues), d, w.deps)).toEqual({
      status: 415,
      body: { error: 'expected Content-Type: application/json' },
      outcome: 'rejected_content_type',
    });
    expect(w.calls).toEqual([]);
    expect(w.lines.at(-1)).toMatchObject({ msg: 'webhook rejected', source: 'tickets', ip: '192.0.2.7', status: 415 });
  });

  it('takes JSON with a suffix and parameters, and what a source says it accepts', async () => {
    const w = world();
    const vendorJson = delivery(w, '{"open":["1"]}', {
      ...JSON_HEADERS,
      'content-type': 'application/vnd.x+json; charset=utf-8',
    });
    expect((await receive(source(openIssues), vendorJson, w.deps)).status).toBe(200);
    const forms: WebhookHandler = { accepts: /^text\/plain$/, parse: () => ({ open: ['2'] }), handle: openIssues };
    const plain = delivery(w, 'not json', { 'content-type': 'text/plain' });
    expect(await receive(forms, plain, w.deps)).toMatchObject({ status: 200, outcome: 'accepted' });
    const json = delivery(w, '{}', { 'content-type': 'application/json' });
    expect(await receive(forms, json, w.deps)).toMatchObject({
      status: 415,
      body: { error: 'unexpected Content-Type' },
    });
  });

  it('refuses wrong header credentials with 401 naming the fix, the reason in the log only, the body unread', async () => {
    const w = world();
    const reply = await receive(source(openIssues), delivery(w, '{}', { ...JSON_HEADERS, 'x-token': 'no' }), w.deps);
    expect(reply).toEqual({ status: 401, body: { error: 'unauthorized: set X-Token' }, outcome: 'rejected_auth' });
    expect(w.calls).toEqual([]);
    expect(w.lines.at(-1)).toMatchObject({ msg: 'webhook rejected', status: 401, reason: 'wrong token' });
  });

  it('answers the body reader’s refusal (too large, 413) as the error mapping does', async () => {
    const w = world();
    const reply = await receive(source(openIssues), delivery(w, new HttpStatusError(413, 'too large')), w.deps);
    expect(reply).toEqual({ status: 413, body: { error: 'request body too large' }, outcome: 'too_large' });
    expect(w.calls).toEqual(['read body']);
  });

  it('refuses a bad signature over the raw body with 401 before parsing or looking at the delivery id', async () => {
    const w = world();
    const reply = await receive(source(openIssues), delivery(w, '{"forged": not even json'), w.deps);
    expect(reply).toEqual({ status: 401, body: { error: 'unauthorized' }, outcome: 'rejected_auth' });
    expect(w.calls).toEqual(['read body']);
    expect(w.lines.at(-1)).toMatchObject({ reason: 'signature: digest differs' });
  });

  it('refuses a body that is not JSON, or that the source rejects, with 400 naming the field', async () => {
    const w = world();
    expect(await receive(source(openIssues), delivery(w, '{nope'), w.deps)).toMatchObject({
      status: 400,
      outcome: 'rejected_schema',
      body: { field: '' },
    });
    const strict = source(() => {
      throw new InputError('alerts.0.labels', 'expected an object');
    });
    expect(await receive(strict, delivery(w, '{}'), w.deps)).toEqual({
      status: 400,
      body: { error: 'alerts.0.labels: expected an object', field: 'alerts.0.labels' },
      outcome: 'rejected_schema',
    });
    expect(w.remembered.size).toBe(0);
  });
});

describe('receive: accepted deliveries', () => {
  it('accepts issues into intake, then remembers the delivery id; a replay is answered and does nothing', async () => {
    const w = world();
    const first = await receive(source(openIssues), delivery(w, '{"open":["1","2"]}'), w.deps);
    expect(first).toEqual({
      status: 200,
      body: { queued: ['inv-T-1', 'inv-T-2'], duplicates: [], resolved: [] },
      outcome: 'accepted',
    });
    expect(w.calls).toEqual(['read body', 'seen tickets/d-1', 'accept T-1,T-2', 'remember tickets/d-1']);
    expect(w.lines.at(-1)).toMatchObject({
      msg: 'webhook accepted',
      deliveryId: 'd-1',
      tickets: ['1', '2'],
      queued: 2,
    });
    w.calls.length = 0;
    const replay = await receive(source(openIssues), delivery(w, '{"open":["1","2"]}'), w.deps);
    expect(replay).toEqual({
      status: 200,
      body: { ignored: 'delivery already handled', queued: [], duplicates: [], resolved: [] },
      outcome: 'duplicate',
    });
    expect(w.calls).toEqual(['read body', 'seen tickets/d-1']);
  });

  it('counts a delivery whose every issue was a repeat as a duplicate, and adds the source’s extra fields', async () => {
    const w = world({ accept: async () => ({ queued: [], duplicates: ['inv-1'], resolved: [] }) });
    const withExtra = source((b) => ({ kind: 'issues', issues: [anIssue(`T-${String(b)}`)], extra: { note: 'x' } }));
    expect(await receive(withExtra, delivery(w, '{"open":["1"]}'), w.deps)).toEqual({
      status: 200,
      body: { queued: [], duplicates: ['inv-1'], resolved: [], note: 'x' },
      outcome: 'duplicate',
    });
  });

  it('answers 200 for what the source ignores, and remembers it; no delivery id, nothing remembered', async () => {
    const w = world();
    const ignoring = source(() => ({ kind: 'ignored', reason: 'not a trigger' }));
    expect(await receive(ignoring, delivery(w, '{}'), w.deps)).toEqual({
      status: 200,
      body: { ignored: 'not a trigger', queued: [], duplicates: [], resolved: [] },
      outcome: 'ignored',
    });
    expect([...w.remembered]).toEqual(['tickets/d-1']);
    const noId = delivery(w, '{}', { 'content-type': 'application/json', 'x-token': 'ok' });
    await receive(ignoring, noId, w.deps);
    expect([...w.remembered]).toEqual(['tickets/d-1']);
  });

  it('passes a source’s own reply through: an empty one, and a 4xx counted by its status', async () => {
    const w = world();
    const ack = source(() => ({ kind: 'reply', status: 200, body: undefined }));
    expect(await receive(ack, delivery(w, '{}'), w.deps)).toEqual({ status: 200, body: undefined, outcome: 'replied' });
    const nope = source(() => ({ kind: 'reply', status: 403, body: { error: 'no' } }));
    expect(await receive(nope, delivery(w, '{}'), w.deps)).toEqual({
      status: 403,
      body: { error: 'no' },
      outcome: 'rejected_auth',
    });
    expect(w.remembered.size).toBe(0);
  });
});

describe('receive: decisions from ticket comments', () => {
  const deciding = (identity: string) =>
    source(() => ({
      kind: 'decide',
      issue: { source: 'tickets', identity },
      decisions: [{ toolCallId: 'c1', approved: true, decidedBy: { via: 'github', user: 'ann' } }],
    }));

  it('ignores them, remembering nothing, where this process takes no approvals', async () => {
    const w = world();
    expect(await receive(deciding('T-ok'), delivery(w, '{}'), w.deps)).toEqual({
      status: 200,
      body: { ignored: 'approvals are not taken here' },
      outcome: 'ignored',
    });
    expect(w.remembered.size).toBe(0);
  });

  it('decides through the decide path: 200 either way, accepted when recorded, and the delivery remembered', async () => {
    const w = world({ decide: true });
    expect(await receive(deciding('T-ok'), delivery(w, '{}'), w.deps)).toEqual({
      status: 200,
      body: { decided: true, investigationId: 'inv-1' },
      outcome: 'accepted',
    });
    expect(w.calls).toEqual(['read body', 'seen tickets/d-1', 'decide T-ok c1', 'remember tickets/d-1']);
    const other = delivery(w, '{}', { ...JSON_HEADERS, 'x-delivery': 'd-2' });
    expect(await receive(deciding('T-gone'), other, w.deps)).toEqual({
      status: 200,
      body: { decided: false, error: 'investigation is not awaiting approval' },
      outcome: 'ignored',
    });
    expect(w.lines.at(-1)).toMatchObject({ msg: 'decision from a ticket comment not recorded', status: 409 });
  });
});

describe('receive: failures are answers', () => {
  it('answers 503 when Redis cannot be reached, and remembers nothing, so the sender delivers again', async () => {
    const w = world({
      accept: async () => {
        throw new Error('Connection is closed.');
      },
    });
    expect(await receive(source(openIssues), delivery(w, '{"open":["1"]}'), w.deps)).toEqual({
      status: 503,
      body: { error: 'temporarily unable to store the request; retry' },
      outcome: 'error',
    });
    expect(w.remembered.size).toBe(0);
  });

  it('answers a bug with 500 and a request id, logged with the path, never with the message', async () => {
    const w = world();
    const buggy = source(() => {
      throw new Error('secret detail');
    });
    const reply = await receive(buggy, delivery(w, '{}'), w.deps);
    expect(reply).toEqual({
      status: 500,
      body: { error: 'internal error', requestId: expect.any(String) },
      outcome: 'error',
    });
    expect(w.lines.at(-1)).toMatchObject({ msg: 'request failed: internal error', path: '/webhooks/tickets' });
  });
});
