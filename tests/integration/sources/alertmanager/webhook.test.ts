import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QUEUE_NAME, QUEUE_PREFIX } from '../../../../src/redis/queue-names.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { issuesFromWebhook } from '../../../../sources/alertmanager/map.js';
import { WebhookPayloadSchema } from '../../../../sources/alertmanager/schema.js';
import { amCaptured, amFixture } from '../../../helpers/fixtures.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { getJson, jobsDispatched, startTestService, waitFor, type TestService } from '../../../helpers/service.js';
import { beginRun, claimIssue } from '../../../helpers/store-paths.js';

const TOKEN = 's3cret';
let redis: TestRedis;
let admin: Redis;
let svc: TestService;
let queue: Queue;

const post = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
  fetch(`${svc.base}/webhooks/alertmanager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const list = async () => (await getJson(`${svc.base}/api/investigations`)).body.items as Array<Record<string, unknown>>;
const jobCount = () => queue.getJobCountByTypes('waiting', 'delayed', 'active', 'prioritized');

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
  queue = new Queue(QUEUE_NAME, {
    connection: new Redis(redis.url, { maxRetriesPerRequest: null }),
    prefix: QUEUE_PREFIX,
  });
});
afterAll(async () => {
  await svc?.close();
  await queue.close();
  admin.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await svc?.close();
  await admin.flushall();
  // No LLM configured: workers do not start, so queued jobs stay visible.
  svc = await startTestService(redis.url, { ALERTMANAGER_WEBHOOK_TOKEN: TOKEN });
});

describe('POST /webhooks/alertmanager', () => {
  it('queues one investigation per firing alert and answers only after it is stored', async () => {
    const res = await post(amFixture('group-firing-truncated').body);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.queued).toHaveLength(2);
    await jobsDispatched(admin);
    expect(await jobCount()).toBe(2);
    // Finished jobs are kept as long as records (queue.retentionSeconds), no longer.
    const job = await queue.getJob(body.queued[0]);
    expect(job!.opts).toMatchObject({ removeOnComplete: { age: 2592000 }, removeOnFail: { age: 2592000 } });
    const items = await list();
    expect(items.map((i) => i.status)).toEqual(['queued', 'queued']);
    expect(items.map((i) => i.title).sort()).toEqual([
      'KubePodCrashLooping: Pod payment-api-a is crash looping',
      'KubePodCrashLooping: Pod payment-api-b is crash looping',
    ]);
  });

  it('creates nothing for repeats and retries, across a service and a Redis restart', async () => {
    await post(amFixture('group-firing-truncated').body);
    const again = await (await post(amFixture('group-repeat-notification').body)).json();
    expect(again).toMatchObject({ queued: [], duplicates: expect.any(Array) });
    expect(again.duplicates).toHaveLength(2);
    await svc.close();
    await redis.restart();
    svc = await startTestService(redis.url, { ALERTMANAGER_WEBHOOK_TOKEN: TOKEN });
    const afterRestart = await (await post(amFixture('group-repeat-notification').body)).json();
    expect(afterRestart.queued).toEqual([]);
    expect(await list()).toHaveLength(2);
    await jobsDispatched(admin);
    expect(await jobCount()).toBe(2);
  });

  it('never starts an investigation for a resolved alert, and marks the open one resolved', async () => {
    await post(amFixture('group-firing-truncated').body);
    const mixed = await (await post(amFixture('group-mixed-resolved').body)).json();
    expect(mixed.queued).toEqual([]);
    expect(mixed.resolved).toHaveLength(1);
    const resolved = (await getJson(`${svc.base}/api/investigations/${mixed.resolved[0]}`)).body;
    expect(resolved).toMatchObject({
      issueStatus: 'resolved',
      status: 'queued',
      issue: { fingerprint: 'e02342136ca8c633' },
    });
    const next = await (await post(amFixture('group-next').body)).json();
    expect(next.queued).toHaveLength(1);
    expect(await list()).toHaveLength(3);
    const onlyResolved = await (await post(amCaptured('resolved').body, { authorization: `Bearer ${TOKEN}` })).json();
    expect(onlyResolved).toEqual({ queued: [], duplicates: [], resolved: [] });
    expect(await list()).toHaveLength(3);
  });

  it('re-enqueues a claimed investigation whose enqueue never happened (crash in between)', async () => {
    const store = new InvestigationStore(admin, { dedupTtlSeconds: 60, retentionSeconds: 60 });
    const issue = issuesFromWebhook(WebhookPayloadSchema.parse(amFixture('group-next').body))[0]!;
    const claim = await claimIssue(store, issue);
    expect(await jobCount()).toBe(0);
    const res = await (await post(amFixture('group-next').body)).json();
    expect(res.duplicates).toContain(claim.id);
    await jobsDispatched(admin);
    expect(await queue.getJob(claim.id)).toBeDefined();
  });

  it('re-enqueues a claim whose record is unfinished but whose job is gone or was failed behind its back', async () => {
    const store = new InvestigationStore(admin, { dedupTtlSeconds: 60, retentionSeconds: 60 });
    const [first, second] = issuesFromWebhook(WebhookPayloadSchema.parse(amFixture('group-next').body));
    // A running record without a job (e.g. removed by hand or lost).
    const gone = await claimIssue(store, first!);
    await beginRun(store, gone.id, 1);
    // A queued record whose job BullMQ failed without our handler running (e.g. stalled too often).
    const failed = await claimIssue(store, second!);
    await queue.add('investigate', { investigationId: failed.id }, { jobId: failed.id });
    const rogue = new Worker(
      QUEUE_NAME,
      async () => {
        throw new UnrecoverableError('job stalled more than allowable limit');
      },
      { connection: new Redis(redis.url, { maxRetriesPerRequest: null }), prefix: QUEUE_PREFIX },
    );
    await waitFor('the job to fail', async () => (await queue.getJobState(failed.id)) === 'failed');
    await rogue.close();
    const res = await (await post(amFixture('group-next').body)).json();
    expect(res.duplicates.sort()).toEqual([gone.id, failed.id].sort());
    await jobsDispatched(admin);
    // Waiting for a worker again ('prioritized' when claimed with a priority, as intake does).
    expect(['waiting', 'prioritized']).toContain(await queue.getJobState(gone.id));
    expect(['waiting', 'prioritized']).toContain(await queue.getJobState(failed.id));
  });

  it('rejects missing or wrong credentials with a bare 401', async () => {
    const body = amFixture('group-next').body;
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Bearer wrong' },
      { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
    ]) {
      const res = await post(body, headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'unauthorized' });
    }
    expect(await list()).toHaveLength(0);
  });

  it('with no credential configured, refuses every delivery with a 401 naming the fix, and logs why', async () => {
    await svc.close();
    // '' is unset: the service's defaults, without the test helper's opt-in.
    svc = await startTestService(redis.url, { ALERTMANAGER_ALLOW_UNAUTHENTICATED: '' });
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer anything' }]) {
      const res = await post(amFixture('group-next').body, headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        error:
          'unauthorized: no ALERTMANAGER_WEBHOOK_TOKEN (sources.alertmanager.bearerToken) or basicAuth is configured: ' +
          "set one and send it from Alertmanager's http_config.authorization, or set ALERTMANAGER_ALLOW_UNAUTHENTICATED=true " +
          '(sources.alertmanager.allowUnauthenticated) to take unauthenticated deliveries',
      });
    }
    expect(await list()).toHaveLength(0);
    expect(svc.logs.find((l) => l.msg === 'webhook rejected')).toMatchObject({
      status: 401,
      reason: 'no credential configured',
    });
  });

  it('takes unauthenticated deliveries when ALERTMANAGER_ALLOW_UNAUTHENTICATED says so, and warns at start-up', async () => {
    await svc.close();
    svc = await startTestService(redis.url, { ALERTMANAGER_ALLOW_UNAUTHENTICATED: 'true' });
    const res = await post(amFixture('group-next').body, {});
    expect(res.status).toBe(200);
    expect((await res.json()).queued).toHaveLength(2);
    const summary = svc.logs.find((l) => l.msg === 'lestrade serve started');
    expect(JSON.stringify(summary?.open)).toMatch(
      /ALERTMANAGER_ALLOW_UNAUTHENTICATED: \/webhooks\/alertmanager accepts unauthenticated requests/,
    );
  });

  it('rejects a bad payload with 400 naming the field, enqueuing nothing', async () => {
    const body = structuredClone(amFixture('group-next').body);
    delete (body.alerts[0] as Record<string, unknown>).startsAt;
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      field: 'alerts.0.startsAt',
      error: expect.stringMatching(/^alerts\.0\.startsAt: /),
    });
    const notJson = await post('{"version": "4",');
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error).toMatch(/not valid JSON/);
    expect(await jobCount()).toBe(0);
    expect(await list()).toHaveLength(0);
  });

  it('refuses timestamps Alertmanager never sends, and keeps a label named __proto__ as data', async () => {
    for (const bad of ['', 'yesterday', 'never', '2024-01-01']) {
      const body = structuredClone(amFixture('group-next').body);
      body.alerts[0]!.startsAt = bad;
      const res = await post(body);
      expect(res.status, bad).toBe(400);
      expect((await res.json()).field).toBe('alerts.0.startsAt');
    }
    const text = JSON.stringify({
      ...amFixture('group-next').body,
      alerts: amFixture('group-next').body.alerts.slice(0, 1),
    }).replace('"labels":{', '"labels":{"__proto__":"polluted",');
    const res = await post(text);
    expect(res.status).toBe(200);
    const [id] = (await res.json()).queued;
    const inv = (await getJson(`${svc.base}/api/investigations/${id}`)).body;
    expect(Object.keys(inv.issue.labels)).toContain('__proto__');
    expect(Object.getOwnPropertyDescriptor(inv.issue.labels, '__proto__')?.value).toBe('polluted');
  });

  it('stores lone UTF-16 surrogates (and other odd strings) exactly, in the record and its summary', async () => {
    const body = structuredClone({
      ...amFixture('group-next').body,
      alerts: amFixture('group-next').body.alerts.slice(0, 1),
    }) as Record<string, any>;
    const alert = body.alerts[0];
    alert.labels = { ...alert.labels, alertname: '\ud800', odd: 'a\udc00b\u0000c\u2028"\\' };
    alert.annotations = { summary: 'x\udfff', description: '\ud83d' };
    alert.generatorURL = 'http://g/\ud800';
    body.externalURL = 'http://am/\udbff';
    body.groupKey = '{}:{alertname="\ud800"}';
    const res = await post(body);
    expect(res.status).toBe(200);
    const [id] = (await res.json()).queued;
    const inv = (await getJson(`${svc.base}/api/investigations/${id}`)).body;
    expect(inv.issue.labels).toEqual(alert.labels);
    expect(inv.issue.annotations).toEqual(alert.annotations);
    expect(inv.issue.url).toBe('http://g/\ud800');
    expect(inv.issue.sourceInstance).toBe('http://am/\udbff');
    expect(inv.title).toBe('\ud800: x\udfff');
    expect((await list())[0]!.title).toBe('\ud800: x\udfff');
    // Repeats are recognised: the identity is stored and compared losslessly too.
    expect((await (await post(body)).json()).duplicates).toEqual([id]);
  });

  it('takes at most maxAlertsPerDelivery alerts from one delivery, reports the rest, and logs a clipped group key', async () => {
    const config = join(mkdtempSync(join(tmpdir(), 'lestrade-cap-')), 'lestrade.yaml');
    writeFileSync(config, 'sources: { alertmanager: { maxAlertsPerDelivery: 3 } }\n');
    const capped = await startTestService(redis.url, { LESTRADE_CONFIG: config });
    try {
      const template = amFixture('group-next').body.alerts[0]!;
      const alerts = Array.from({ length: 5 }, (_, i) => ({
        ...template,
        fingerprint: `00000000000000${String(i).padStart(2, '0')}`,
      }));
      const groupKey = `{}:{alertname="${'k'.repeat(100_000)}"}`;
      const res = await fetch(`${capped.base}/webhooks/alertmanager`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...amFixture('group-next').body, groupKey, alerts }),
      });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body.queued).toHaveLength(3);
      expect(body.truncatedAlerts).toBe(2);
      const line = capped.logs.find((l) => l.msg === 'webhook accepted')!;
      expect(line).toMatchObject({ alerts: 5, taken: 3, queued: 3 });
      expect(String(line.groupKey).length).toBeLessThan(300);
      expect(JSON.stringify(capped.logs).length).toBeLessThan(50_000);
    } finally {
      await capped.close();
    }
  });

  it('answers 413 to an oversized body', async () => {
    const body = { ...amFixture('group-next').body, commonAnnotations: { huge: 'x'.repeat(2 * 1024 * 1024) } };
    const res = await post(body);
    expect(res.status).toBe(413);
    expect(await list()).toHaveLength(0);
  });

  it('answers 5xx while Redis is down, so Alertmanager retries, and accepts the retry once it is back', async () => {
    await redis.kill();
    const down = await post(amFixture('group-next').body);
    expect(down.status).toBe(503);
    const ready = await getJson(`${svc.base}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.body.checks.redis).toMatch(/unreachable/);
    await redis.start();
    let res: Response | undefined;
    for (let i = 0; i < 50 && res?.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 200));
      res = await post(amFixture('group-next').body);
    }
    expect(res!.status).toBe(200);
    expect(await list()).toHaveLength(2);
  });

  it('says plainly that investigations wait for an LLM', async () => {
    await post(amFixture('group-next').body);
    await new Promise((r) => setTimeout(r, 1100));
    const ready = await getJson(`${svc.base}/readyz`);
    expect(ready).toMatchObject({
      status: 503,
      body: { checks: { redis: 'ok', llm: expect.stringMatching(/not configured.*\(2 waiting\)/) } },
    });
    expect(ready.body.queue).toEqual({ waiting: 2, oldestWaitingSeconds: expect.any(Number) });
    expect(ready.body.queue.oldestWaitingSeconds).toBeGreaterThanOrEqual(1);
    const listed = (await getJson(`${svc.base}/api/investigations`)).body;
    expect(listed.notice).toMatch(/no LLM configured/);
    expect(listed.queue).toEqual({ waiting: 2, oldestWaitingSeconds: expect.any(Number) });
    // The start-up summary is one JSON record; its toolsets field says why none loaded.
    expect(svc.logs.some((l) => JSON.stringify(l).includes('no LLM configured'))).toBe(true);
    expect((await getJson(`${svc.base}/healthz`)).status).toBe(200);
  });
});
