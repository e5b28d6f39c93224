import { gzipSync } from 'node:zlib';
import { request, type Server } from 'node:http';
import { Writable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/errors.js';
import { DEFAULT_PRIORITIES, IntakePolicy } from '../../../../src/intake-policy/intake-policy.js';
import { createHttpServer } from '../../../../src/http/create-app.js';
import { createLogger } from '../../../../src/log.js';
import { Intake } from '../../../../src/queue/intake-queue.js';
import type { Issue } from '../../../../src/issue.js';
import type { WebhookHandler } from '../../../../src/registration/source.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { anIssue } from '../../../helpers/issue.js';

/** The engine's one webhook route, with a source of the test's own making, on real Redis. */
let redis: TestRedis;
let conn: Redis;
let server: Server;
let base: string;
const calls: string[] = [];
const seen: Array<Record<string, string | undefined>> = [];
const logs: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(chunk: Buffer, _e, cb) {
    for (const l of chunk.toString().split('\n')) if (l) logs.push(JSON.parse(l));
    cb();
  },
});

const issue = (n: string): Issue =>
  anIssue(`T-${n}`, { sourceInstance: 't', title: `ticket ${n}`, severity: 'unknown' });

const handler: WebhookHandler = {
  checkHeaders: (h) => {
    calls.push('checkHeaders');
    seen.push({ ...h });
    if (h['x-token'] === 'unconfigured') return { ok: false, reason: 'none configured', fix: 'set TICKETS_TOKEN' };
    return h['x-token'] === 'ok' ? { ok: true } : { ok: false, reason: 'bad token' };
  },
  verify: (d) => {
    calls.push('verify');
    return d.headers['x-sig'] === `len=${d.rawBody.length}` ? { ok: true } : { ok: false, reason: 'bad signature' };
  },
  deliveryId: (h) => h['x-delivery'],
  handle: (body) => {
    calls.push('handle');
    const b = body as { ping?: boolean; ignore?: string; n?: unknown; resolve?: string; noisy?: string };
    if (b.noisy)
      return { kind: 'issues', issues: [{ ...issue(b.noisy), labels: { alertname: 'Noisy' } }, issue(`${b.noisy}-b`)] };
    if (b.resolve) return { kind: 'issues', issues: [{ ...issue(b.resolve), status: 'resolved' }] };
    if (b.ping) return { kind: 'reply', status: 200, body: { pong: true } };
    if (b.ignore) return { kind: 'ignored', reason: b.ignore };
    if (typeof b.n !== 'string') throw new InputError('n', 'expected a string');
    return { kind: 'issues', issues: [issue(b.n)] };
  },
};

beforeAll(async () => {
  redis = await startRedis();
  conn = new Redis(redis.url);
  const store = new InvestigationStore(conn, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
  const policy = new IntakePolicy({
    priorities: DEFAULT_PRIORITIES,
    prioritiesBySource: {},
    skip: [{ name: 'noisy', matchers: ['alertname="Noisy"'] }],
    skipResolvedWhileQueued: false,
  });
  const intake = new Intake(conn, store, { attempts: 1, backoffMs: 1000, retentionSeconds: 3600, policy });
  const http = createHttpServer({
    redis: conn,
    store,
    intake,
    llmConfigured: false,
    apiTokens: [],
    log: createLogger('info', sink),
    bodyLimitBytes: 1024,
    deliveryTtlSeconds: 60,
    webhooks: [
      { name: 'tickets', handler },
      { name: 'pager', offReason: 'no PAGER_API_KEY set' },
    ],
  });
  server = await new Promise((r) => {
    http.listen(0, '127.0.0.1', () => r(http));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  server.close();
  conn.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  calls.length = 0;
  seen.length = 0;
  logs.length = 0;
  await conn.flushall();
});

function post(body: string | Buffer, headers: Record<string, string> = {}, path = '/webhooks/tickets') {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const len = bytes.length;
  return fetch(base + path, {
    method: 'POST',
    body: new Uint8Array(bytes),
    headers: { 'content-type': 'application/json', 'x-token': 'ok', 'x-sig': `len=${len}`, ...headers },
  });
}

describe('POST /webhooks/<source>', () => {
  it('accepts a good delivery into intake, and the replayed delivery id does nothing', async () => {
    const first = await post('{"n":"1"}', { 'x-delivery': 'd-1' });
    expect(first.status).toBe(200);
    expect((await first.json()).queued).toHaveLength(1);
    const replay = await post('{"n":"2"}', { 'x-delivery': 'd-1' });
    expect(await replay.json()).toEqual({
      ignored: 'delivery already handled',
      queued: [],
      duplicates: [],
      resolved: [],
    });
    expect(logs.map((l) => [l.msg, l.source, l.deliveryId])).toEqual([
      ['webhook accepted', 'tickets', 'd-1'],
      ['webhook ignored: delivery already handled', 'tickets', 'd-1'],
    ]);
    expect(logs[0]).toMatchObject({ queued: 1, duplicates: 0, resolved: 0 });
    expect(calls.filter((c) => c === 'handle')).toHaveLength(1);
    const other = await post('{"n":"1"}', { 'x-delivery': 'd-2' });
    expect((await other.json()).duplicates).toHaveLength(1);
    expect(logs.at(-1)).toMatchObject({ msg: 'webhook accepted', queued: 0, duplicates: 1, resolved: 0 });
    const resolved = await post('{"resolve":"1"}', { 'x-delivery': 'd-5' });
    expect((await resolved.json()).resolved).toHaveLength(1);
    expect(logs.at(-1)).toMatchObject({ msg: 'webhook accepted', queued: 0, duplicates: 0, resolved: 1 });
  });

  // Issue 16, defect 12: the "webhook accepted" line did not count skipped issues. Failed before the fix.
  it('counts the issues a skip rule matched in the "webhook accepted" line', async () => {
    const res = await post('{"noisy":"7"}', { 'x-delivery': 'd-7' });
    expect((await res.json()).skipped).toHaveLength(1);
    expect(logs.at(-1)).toMatchObject({ msg: 'webhook accepted', queued: 1, duplicates: 0, resolved: 0, skipped: 1 });
  });

  it('refuses a wrong content type before anything else (415)', async () => {
    expect((await post('{"n":"1"}', { 'content-type': 'text/plain' })).status).toBe(415);
    expect(calls).toEqual([]);
  });

  it('checks header credentials before reading the body: an unauthenticated gzip bomb is 401, not 413', async () => {
    const bomb = gzipSync(Buffer.alloc(5_000_000, 0x20));
    const res = await post(bomb, { 'x-token': 'nope', 'content-encoding': 'gzip' });
    expect(res.status).toBe(401);
    expect(calls).toEqual(['checkHeaders']);
    expect((await post(bomb, { 'content-encoding': 'gzip' })).status).toBe(413);
  });

  it("sends a refusal's fix in the 401's body, and only the bare 401 for wrong credentials; the reason is logged", async () => {
    const unconfigured = await post('{"n":"1"}', { 'x-token': 'unconfigured' });
    expect(unconfigured.status).toBe(401);
    expect(await unconfigured.json()).toEqual({ error: 'unauthorized: set TICKETS_TOKEN' });
    expect(logs.at(-1)).toMatchObject({ msg: 'webhook rejected', status: 401, reason: 'none configured' });
    const wrong = await post('{"n":"1"}', { 'x-token': 'nope' });
    expect(await wrong.json()).toEqual({ error: 'unauthorized' });
    expect(logs.at(-1)).toMatchObject({ msg: 'webhook rejected', status: 401, reason: 'bad token' });
  });

  it('verifies the signature on the raw body before parsing it', async () => {
    const res = await post('{"n":"1"}', { 'x-sig': 'len=0' });
    expect(res.status).toBe(401);
    expect(calls).toEqual(['checkHeaders', 'verify']);
    expect(await conn.dbsize()).toBe(0);
  });

  it('answers 400 naming the field for bad JSON or a bad payload, and stores nothing', async () => {
    const notJson = await post('{"n":');
    expect(notJson.status).toBe(400);
    const bad = await post('{"n":1}', { 'x-delivery': 'd-3' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ field: 'n' });
    expect(await conn.dbsize()).toBe(0);
    expect((await (await post('{"n":"1"}', { 'x-delivery': 'd-3' })).json()).queued).toHaveLength(1);
  });

  it('passes handshakes and ignored deliveries through without intake', async () => {
    expect(await (await post('{"ping":true}')).json()).toEqual({ pong: true });
    const ignored = await post('{"ignore":"author is not trusted"}', { 'x-delivery': 'd-4' });
    expect(await ignored.json()).toEqual({
      ignored: 'author is not trusted',
      queued: [],
      duplicates: [],
      resolved: [],
    });
    expect(logs.at(-1)).toMatchObject({ msg: 'webhook accepted', ignored: 'author is not trusted', queued: 0 });
    expect(await conn.keys('{lestrade}:inv:*')).toEqual([]);
  });

  it('finds the source as express did: any case, one trailing slash, any query; nothing deeper', async () => {
    for (const path of [
      '/Webhooks/TICKETS',
      '/webhooks/tickets/',
      '/webhooks/tickets?x=1&y',
      '/webhooks/tickets/?x=1',
    ]) {
      expect((await post(`{"n":"${path}"}`, {}, path)).status, path).toBe(200);
    }
    for (const path of [
      '/webhooks/tickets/x',
      '/webhooks/ticket',
      '/webhooks/',
      '/webhookstickets',
      '/webhookz/tickets',
      '/api/v1/x/tickets',
    ]) {
      const res = await post('{"n":"1"}', {}, path);
      expect([res.status, await res.json()], path).toEqual([404, { error: 'not found' }]);
    }
    expect(calls.filter((c) => c === 'handle')).toHaveLength(4);
  });

  it('takes JSON media types only: vendor +json types and parameters, nothing that merely contains json', async () => {
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/vnd.github.v3+json',
      'application/json ;x=1',
    ]) {
      expect((await post(`{"n":"${type}"}`, { 'content-type': type })).status, type).toBe(200);
    }
    for (const type of [
      'application/jsonx',
      'text/application/json',
      'application/+json',
      'application/x json',
      'application/ison',
    ]) {
      const res = await post('{"n":"1"}', { 'content-type': type });
      expect([res.status, await res.json()], type).toEqual([415, { error: 'expected Content-Type: application/json' }]);
    }
    expect(logs.at(-1)).toMatchObject({
      msg: 'webhook rejected',
      source: 'tickets',
      status: 415,
      reason: 'expected Content-Type: application/json',
      ip: '127.0.0.1',
    });
  });

  it('answers bad credentials and bad signatures with the same 401 body, logging which', async () => {
    const creds = await post('{"n":"1"}', { 'x-token': 'nope' });
    const sig = await post('{"n":"1"}', { 'x-sig': 'len=0' });
    expect([await creds.json(), await sig.json()]).toEqual([{ error: 'unauthorized' }, { error: 'unauthorized' }]);
    // Issue 16, defect 12: the header check's reason is logged (it was only "unauthorized"); failed before the fix.
    expect(logs.map((l) => [l.msg, l.status, l.reason])).toEqual([
      ['webhook rejected', 401, 'bad token'],
      ['webhook rejected', 401, 'signature: bad signature'],
    ]);
  });

  it('hands the source its headers by lower-case name, repeated ones joined', async () => {
    await new Promise<void>((resolve, reject) => {
      const body = '{"n":"hdr"}';
      const req = request(
        `${base}/webhooks/tickets`,
        {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            'X-Token': 'ok',
            'X-Sig': `len=${body.length}`,
            'Set-Cookie': ['a=1', 'b=2'],
          },
        },
        (res) => {
          res.resume().on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(seen[0]).toMatchObject({ 'x-token': 'ok', 'set-cookie': 'a=1, b=2', 'content-type': 'application/json' });
  });

  it('answers any method but POST with 405 and Allow: POST, reading nothing', async () => {
    const res = await fetch(`${base}/webhooks/tickets`, {
      method: 'PUT',
      body: '{"n":"1"}',
      headers: { 'content-type': 'application/json', 'x-token': 'ok' },
    });
    expect([res.status, res.headers.get('allow'), await res.json()]).toEqual([405, 'POST', { error: 'use POST' }]);
    expect((await fetch(`${base}/webhooks/tickets`)).status).toBe(405);
    expect(calls).toEqual([]);
  });

  it('answers in JSON with its length, and leaves health and the API to the rest of the app', async () => {
    const res = await post('{"n":"len"}');
    const text = await res.text();
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
  });

  it("turns a failure of intake into the error handler's answer: 503 when Redis refuses", async () => {
    await conn.config('SET', 'maxmemory', '1');
    await conn.config('SET', 'maxmemory-policy', 'noeviction');
    try {
      const res = await post('{"n":"oom"}');
      expect([res.status, await res.json()]).toEqual([
        503,
        { error: 'temporarily unable to store the request; retry' },
      ]);
    } finally {
      await conn.config('SET', 'maxmemory', '0');
    }
  });

  it('answers 404 with the reason for a source that is off', async () => {
    const res = await post('{}', {}, '/webhooks/pager');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'source pager is off: no PAGER_API_KEY set' });
  });
});
