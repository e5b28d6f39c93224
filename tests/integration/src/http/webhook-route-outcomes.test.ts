import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { InputError } from '../../../../src/errors.js';
import { DEFAULT_PRIORITIES, IntakePolicy } from '../../../../src/intake-policy/intake-policy.js';
import { PrometheusMetrics } from '../../../../src/exporter/prometheus-metrics.js';
import { webhookHandler } from '../../../../src/http/webhook-route.js';
import { createLogger } from '../../../../src/log.js';
import { Intake } from '../../../../src/queue/intake-queue.js';
import type { DecideReply } from '../../../../src/actions/decide-calls.js';
import type { Issue } from '../../../../src/issue.js';
import { keysOf } from '../../../../src/redis/keys.js';
import type { TicketDecision, TicketRef, WebhookHandler } from '../../../../src/registration/source.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { sample } from '../../../helpers/metrics-text.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { anIssue } from '../../../helpers/issue.js';

/**
 * What the webhook route tells an operator about each delivery: lestrade_webhook_deliveries_total by
 * source and outcome, its duration in seconds, and ticket-comment decisions, on real Redis and intake.
 */
let redis: TestRedis;
let conn: Redis;
let server: Server;
let port: number;
const metrics = new PrometheusMetrics({ version: 't', pricing: { currency: 'USD', models: {} } });
const decided: Array<[TicketRef, TicketDecision[]]> = [];
const logs: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(chunk: Buffer, _e, cb) {
    for (const l of chunk.toString().split('\n')) if (l) logs.push(JSON.parse(l));
    cb();
  },
});

const issue = (n: string, status: Issue['status'] = 'open'): Issue =>
  anIssue(`T-${n}`, { sourceInstance: 't', title: `ticket ${n}`, severity: 'unknown', status });

const withStatus = (status: number, message: string) => Object.assign(new Error(message), { status });

/** A value that serialises fine but breaks whoever counts it: a source bug, found before the answer is written. */
const breaksAfterSending = {
  toJSON: () => [],
  get length(): number {
    throw new Error('counted too late');
  },
};

/** A body JSON.stringify throws on: the one writer answers 500 instead. */
const unwritable = {
  toJSON: () => {
    throw new Error('cannot be written');
  },
};

interface Body {
  open?: string[];
  resolve?: string[];
  ignore?: string;
  reply?: number;
  replyBody?: unknown;
  slowMs?: number;
  throwStatus?: number;
  bug?: boolean;
  lateBug?: boolean;
  decide?: string;
  calls?: string[];
}

function handle(raw: unknown): ReturnType<WebhookHandler['handle']> {
  const b = raw as Body;
  if (b.throwStatus) throw withStatus(b.throwStatus, `refused by the source (${b.throwStatus})`);
  if (b.bug) throw new Error('a bug in the source');
  if (b.reply !== undefined)
    return { kind: 'reply', status: b.reply, body: b.replyBody === 'unwritable' ? unwritable : b.replyBody };
  if (b.ignore) return { kind: 'ignored', reason: b.ignore };
  if (b.decide) {
    const decisions = (b.calls ?? []).map((id): TicketDecision => ({
      toolCallId: id,
      approved: true,
      decidedBy: { via: 'github', user: 'ann' },
    }));
    return { kind: 'decide', issue: { source: 'tickets', identity: b.decide }, decisions };
  }
  if (!Array.isArray(b.open) && !Array.isArray(b.resolve))
    throw new InputError('open', 'expected a list of ticket numbers');
  const issues = [...(b.resolve ?? []).map((n) => issue(n, 'resolved')), ...(b.open ?? []).map((n) => issue(n))];
  return { kind: 'issues', issues, extra: b.lateBug ? { queued: breaksAfterSending } : undefined };
}

const tickets: WebhookHandler = {
  checkHeaders: (h) => (h['x-token'] === 'ok' ? { ok: true } : { ok: false, reason: 'bad token' }),
  deliveryId: (h) => h['x-delivery'],
  handle: async (raw) => {
    const ms = (raw as Body).slowMs;
    if (ms) await sleep(ms);
    return handle(raw);
  },
};
/** A source taking form posts only, and one taking plain text or no Content-Type at all (an empty ack). */
const forms: WebhookHandler = { accepts: /^application\/x-www-form-urlencoded/i, parse: () => ({}), handle };
const bare: WebhookHandler = { accepts: /^(text\/plain)?$/, parse: () => ({ reply: 202 }), handle };

/** The decision path of the API, as this route sees it: 202 for T-ok, 409 for anything else. */
async function decide(ref: TicketRef, decisions: TicketDecision[]): Promise<DecideReply> {
  decided.push([ref, decisions]);
  return ref.identity === 'T-ok'
    ? { status: 202, body: { investigationId: 'inv-1' } }
    : { status: 409, body: { error: 'investigation is not awaiting approval' } };
}

beforeAll(async () => {
  redis = await startRedis();
  conn = new Redis(redis.url);
  const store = new InvestigationStore(conn, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
  const policy = new IntakePolicy({
    priorities: DEFAULT_PRIORITIES,
    prioritiesBySource: {},
    skip: [],
    skipResolvedWhileQueued: false,
  });
  const intake = new Intake(conn, store, { attempts: 1, backoffMs: 1000, retentionSeconds: 3600, policy });
  const deps = { intake, redis: conn, log: createLogger('info', sink), bodyLimitBytes: 1024, metrics };
  const withDecide = webhookHandler(
    [
      { name: 'tickets', handler: tickets },
      { name: 'forms', handler: forms },
      { name: 'bare', handler: bare },
    ],
    { ...deps, deliveryTtlSeconds: 60, decide },
  );
  const noDecide = webhookHandler([{ name: 'nodecide', handler: tickets }], { ...deps, deliveryTtlSeconds: 60 });
  // LOG_LEVEL=warn: no "webhook accepted" line, so nothing counts a delivery's body before its answer is sent.
  const quiet = webhookHandler([{ name: 'quiet', handler: tickets }], {
    ...deps,
    log: createLogger('warn', sink),
    deliveryTtlSeconds: 60,
  });
  server = createServer((req, res) => {
    if (!withDecide(req, res) && !noDecide(req, res) && !quiet(req, res)) res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  server.close();
  conn.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  decided.length = 0;
  logs.length = 0;
  metrics.registry.resetMetrics();
  await conn.flushall();
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/** One delivery over a fresh connection; headers exactly as given (JSON and a good token unless overridden). */
function post(body: unknown, headers: Record<string, string> = {}, path = '/webhooks/tickets'): Promise<Answer> {
  const bytes = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const all: Record<string, string> = { 'content-type': 'application/json', 'x-token': 'ok', ...headers };
  for (const k of Object.keys(all)) if (all[k] === '') delete all[k];
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', agent: false, headers: all }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end(bytes);
  });
}

/** The outcomes counted since the test began, as "source outcome" → count. */
async function outcomes(): Promise<Record<string, number>> {
  const text = await metrics.registry.metrics();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^lestrade_webhook_deliveries_total\{source="([^"]+)",outcome="([^"]+)"\} (\S+)$/.exec(line);
    if (m) out[`${m[1]} ${m[2]}`] = Number(m[3]);
  }
  return out;
}

/** The one outcome a delivery was counted under (waits for it: the count is recorded as the answer leaves). */
async function outcomeOf(delivery: Promise<unknown>): Promise<string> {
  metrics.registry.resetMetrics();
  await delivery;
  return vi.waitFor(async () => {
    const counted = Object.entries(await outcomes());
    expect(counted).toHaveLength(1);
    expect(counted[0]![1]).toBe(1);
    return counted[0]![0];
  });
}

describe('POST /webhooks/<source>: the outcome each delivery is counted under', () => {
  it('counts refusals by why: credentials, size, content type, schema; any other status as an error', async () => {
    expect(await outcomeOf(post({ open: ['1'] }, { 'x-token': 'nope' }))).toBe('tickets rejected_auth');
    expect(await outcomeOf(post({ throwStatus: 403 }))).toBe('tickets rejected_auth');
    expect(await outcomeOf(post({ open: ['x'.repeat(2000)] }))).toBe('tickets too_large');
    expect(await outcomeOf(post({ open: ['1'] }, { 'content-type': 'text/plain' }))).toBe(
      'tickets rejected_content_type',
    );
    expect(await outcomeOf(post({ open: 'not a list' }))).toBe('tickets rejected_schema');
    expect(await outcomeOf(post('{"open":'))).toBe('tickets rejected_schema');
    expect(await outcomeOf(post({ throwStatus: 422 }))).toBe('tickets rejected_schema');
    expect(await outcomeOf(post({ throwStatus: 409 }))).toBe('tickets error');
    expect(await outcomeOf(post({ bug: true }))).toBe('tickets error');
    expect(await conn.keys('{lestrade}:inv:*')).toEqual([]);
  });

  it("counts a source's own reply as replied below 400, and by its status from 400 on", async () => {
    const pong = post({ reply: 200, replyBody: { pong: true } });
    expect(await outcomeOf(pong)).toBe('tickets replied');
    expect(JSON.parse((await pong).text)).toEqual({ pong: true });
    expect(await outcomeOf(post({ reply: 399, replyBody: {} }))).toBe('tickets replied');
    expect(await outcomeOf(post({ reply: 400, replyBody: { error: 'bad' } }))).toBe('tickets rejected_schema');
    expect(await outcomeOf(post({ reply: 401, replyBody: { error: 'no' } }))).toBe('tickets rejected_auth');
    expect(await outcomeOf(post({ reply: 404, replyBody: { error: 'gone' } }))).toBe('tickets error');
  });

  it('counts accepted when anything was queued or resolved, duplicate when all of it was a repeat', async () => {
    expect(await outcomeOf(post({ open: ['1'] }))).toBe('tickets accepted');
    expect(await outcomeOf(post({ open: ['1'] }))).toBe('tickets duplicate');
    expect(await outcomeOf(post({ open: ['1', '2'] }))).toBe('tickets accepted'); // one new, one repeat
    expect(await outcomeOf(post({ resolve: ['1'], open: ['2'] }))).toBe('tickets accepted'); // resolved, a repeat
    expect(await outcomeOf(post({ open: [] }))).toBe('tickets accepted'); // nothing in it at all
    expect(await outcomeOf(post({ ignore: 'not a trigger' }))).toBe('tickets ignored');
    const replay = post({ open: ['3'] }, { 'x-delivery': 'd-1' });
    expect(await outcomeOf(replay)).toBe('tickets accepted');
    expect(await outcomeOf(post({ open: ['4'] }, { 'x-delivery': 'd-1' }))).toBe('tickets duplicate');
  });

  it('remembers a delivery id for the configured TTL once the delivery is in', async () => {
    await post({ open: ['1'] }, { 'x-delivery': 'd-ttl' });
    const key = keysOf(conn).delivery('tickets', 'd-ttl');
    expect(await conn.get(key)).toBe('1');
    const ttl = await conn.ttl(key);
    expect(ttl).toBeGreaterThan(50);
    expect(ttl).toBeLessThanOrEqual(60);
  });

  it('times each delivery in seconds, from its request to its answer', async () => {
    const t0 = performance.now();
    expect(await outcomeOf(post({ slowMs: 60, reply: 200, replyBody: {} }))).toBe('tickets replied');
    const wall = (performance.now() - t0) / 1000;
    const text = await metrics.registry.metrics();
    const seconds = sample(text, 'lestrade_webhook_duration_seconds_sum', { source: 'tickets' });
    expect(seconds).toBeGreaterThanOrEqual(0.055);
    expect(seconds).toBeLessThanOrEqual(wall);
  });
});

describe('POST /webhooks/<source>: replies a source shapes', () => {
  it('sends a reply without a body as an empty answer with Content-Length 0', async () => {
    const res = await post('', { 'content-type': '' }, '/webhooks/bare'); // no Content-Type: this source takes that
    expect([res.status, res.headers['content-length'], res.headers['transfer-encoding'], res.text]).toEqual([
      202,
      '0',
      undefined,
      '',
    ]);
    const empty = await post({ reply: 200 });
    expect([empty.status, empty.headers['content-length'], empty.headers['transfer-encoding'], empty.text]).toEqual([
      200,
      '0',
      undefined,
      '',
    ]);
  });

  it("refuses a content type a source with its own types does not take, in the source's words", async () => {
    const res = await post('a=1', { 'content-type': 'application/json' }, '/webhooks/forms');
    expect([res.status, JSON.parse(res.text)]).toEqual([415, { error: 'unexpected Content-Type' }]);
    expect(logs.at(-1)).toMatchObject({ msg: 'webhook rejected', source: 'forms', reason: 'unexpected Content-Type' });
  });

  it('answers 500, counting an error, when what the source answered breaks once counted (found before any answer)', async () => {
    const res = post({ open: ['1'], lateBug: true }, {}, '/webhooks/quiet');
    expect(await outcomeOf(res)).toBe('quiet error');
    expect((await res).status).toBe(500);
    expect(JSON.parse((await res).text)).toEqual({ error: 'internal error', requestId: expect.any(String) });
    expect(logs.at(-1)).toMatchObject({ msg: 'request failed: internal error', err: 'counted too late' });
  });

  it('answers 500, counting an error, when what the source answered cannot be written as JSON', async () => {
    const res = post({ reply: 200, replyBody: 'unwritable' });
    expect(await outcomeOf(res)).toBe('tickets error');
    expect([(await res).status, JSON.parse((await res).text).error]).toEqual([500, 'internal error']);
    expect(logs.at(-1)).toMatchObject({ msg: 'request failed: internal error', err: 'cannot be written' });
  });
});

describe('POST /webhooks/<source>: decisions from ticket comments', () => {
  it('answers 200 and ignores them where this process takes no approvals', async () => {
    const res = post({ decide: 'T-ok', calls: ['c1', 'c2'] }, { 'x-delivery': 'd-9' }, '/webhooks/nodecide');
    expect(await outcomeOf(res)).toBe('nodecide ignored');
    expect([(await res).status, JSON.parse((await res).text)]).toEqual([
      200,
      { ignored: 'approvals are not taken here' },
    ]);
    expect(logs.at(-1)).toMatchObject({
      msg: 'webhook ignored: approvals are not taken by this process',
      source: 'nodecide',
      calls: ['c1', 'c2'],
    });
    expect(decided).toEqual([]);
  });

  it('records a decision through the decide path, answers what it did, and remembers the delivery', async () => {
    const res = post({ decide: 'T-ok', calls: ['c1', 'c2'] }, { 'x-delivery': 'd-10' });
    expect(await outcomeOf(res)).toBe('tickets accepted');
    expect([(await res).status, JSON.parse((await res).text)]).toEqual([
      200,
      { decided: true, investigationId: 'inv-1' },
    ]);
    expect(decided.map(([ref, ds]) => [ref.identity, ds.map((d) => d.toolCallId)])).toEqual([['T-ok', ['c1', 'c2']]]);
    expect(logs.at(-1)).toEqual(
      expect.objectContaining({
        msg: 'decision from a ticket comment recorded',
        source: 'tickets',
        identity: 'T-ok',
        calls: ['c1', 'c2'],
        status: 202,
        investigationId: 'inv-1',
      }),
    );
    const key = keysOf(conn).delivery('tickets', 'd-10');
    expect([await conn.get(key), (await conn.ttl(key)) > 50]).toEqual(['1', true]);
    expect(await outcomeOf(post({ decide: 'T-ok', calls: ['c1'] }, { 'x-delivery': 'd-10' }))).toBe(
      'tickets duplicate',
    );
    expect(decided).toHaveLength(1);
  });

  it('answers 200 with decided false, and counts it ignored, when the decision is not recorded', async () => {
    const res = post({ decide: 'T-late', calls: ['c3'] });
    expect(await outcomeOf(res)).toBe('tickets ignored');
    expect([(await res).status, JSON.parse((await res).text)]).toEqual([
      200,
      { decided: false, error: 'investigation is not awaiting approval' },
    ]);
    expect(logs.at(-1)).toMatchObject({
      msg: 'decision from a ticket comment not recorded',
      identity: 'T-late',
      calls: ['c3'],
      status: 409,
    });
  });
});
