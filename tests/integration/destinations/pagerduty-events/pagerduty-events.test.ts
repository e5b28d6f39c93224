import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pagerdutyEvents, PagerDutyEventsConfigSchema } from '../../../../destinations/pagerduty-events/index.js';
import type { DeliveryDeps } from '../../../../src/delivery/delivery-deps.js';
import { runDelivery, type DeliveryJobData } from '../../../../src/delivery/run-delivery.js';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import { createLogger } from '../../../../src/log.js';
import type { CheckOutcome } from '../../../../src/records/check-result.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import {
  startPagerDutyEventsDouble,
  type PagerDutyEventsDouble,
} from '../../../helpers/doubles/pagerduty-events-double.js';
import { anIssue } from '../../../helpers/issue.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { claimIssue, resolveIssue, runsOf } from '../../../helpers/store-paths.js';

/**
 * The PagerDuty Events API v2 destination through the delivery pipeline's own attempt (runDelivery: the view,
 * the record in writeBacks) against a double that validates every event against PagerDuty's Events v2 spec.
 * A check's outcome is what the checks' runs record on an investigation of source `check` (RunControl.complete).
 */
const ROUTING_KEY = 'R0UT1NGKEY0000000000000000000001';
const log = createLogger('silent');
let redis: TestRedis;
let conn: Redis;
let store: InvestigationStore;
let pd: PagerDutyEventsDouble;

beforeAll(async () => {
  redis = await startRedis();
  conn = new Redis(redis.url, { maxRetriesPerRequest: null });
});
afterAll(async () => {
  conn.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await conn.flushall();
  store = new InvestigationStore(conn, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
  pd = await startPagerDutyEventsDouble([ROUTING_KEY]);
});
afterEach(async () => {
  expect(pd.violations).toEqual([]);
  expect(pd.responseViolations).toEqual([]);
  await pd.close();
});

function deps(config: Record<string, unknown> = {}): DeliveryDeps {
  const slice = PagerDutyEventsConfigSchema.parse({ routingKey: ROUTING_KEY, url: pd.enqueueUrl, ...config });
  const destination = pagerdutyEvents.create(slice, { log, env: {} });
  return {
    redis: conn,
    store,
    writers: new Map(),
    destinations: new Map([['pagerduty_events', destination]]),
    log,
    retentionSeconds: 3600,
    publicUrl: 'https://lestrade.example',
  };
}

let runs = 0;
/** One completed run of check `name` (an investigation of source `check`), with its outcome recorded. */
async function checkRun(
  name: string,
  outcome: Omit<CheckOutcome, 'name'>,
  severity = 'critical' as const,
): Promise<string> {
  runs += 1;
  const issue = anIssue(`check:${name}:${runs}`, {
    source: 'check',
    sourceInstance: 'lestrade',
    title: `Check ${name}`,
    severity,
    labels: { check: name, namespace: 'shop' },
  });
  const { id } = await claimIssue(store, issue);
  await runsOf(store).complete(id, {
    rca: `## Verdict\n${outcome.status}: ${outcome.summary}`,
    toolCalls: [],
    usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 },
    linkHosts: [],
    check: { name, ...outcome },
  });
  return id;
}

const job = (id: string, event: DeliveryJobData['event'] = 'completed'): DeliveryJobData => ({
  investigationId: id,
  event,
  ref: 'pagerduty_events',
});

async function record(id: string) {
  return (await store.get(id))!.writeBacks.find((w) => w.destination === 'pagerduty_events');
}

describe('PagerDuty Events API v2: a failing check opens one incident, passing again resolves it', () => {
  it('fail triggers (summary, severity, evidence, link); a repeated fail is the same incident; pass resolves it', async () => {
    const d = deps();
    const first = await checkRun('checkout', {
      status: 'fail',
      previous: 'pass',
      summary: 'p99 latency 840 ms over the last 15 minutes',
      evidence: ['histogram_quantile(0.99, …) = 0.84', 'pod checkout-7f9 not ready\u0007 since 08:02'],
    });
    expect(await runDelivery(job(first), 1, false, d)).toBe('written');
    const alert = pd.alerts.get('lestrade-check:checkout')!;
    expect(alert).toMatchObject({ status: 'triggered', incidents: 1 });
    expect(alert.triggers[0]).toEqual({
      routing_key: ROUTING_KEY,
      event_action: 'trigger',
      dedup_key: 'lestrade-check:checkout',
      client: 'Lestrade',
      client_url: `https://lestrade.example/api/investigations/${first}`,
      links: [{ href: `https://lestrade.example/api/investigations/${first}`, text: 'Open in Lestrade' }],
      payload: {
        summary: 'checkout: fail — p99 latency 840 ms over the last 15 minutes',
        severity: 'critical',
        source: 'shop',
        timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        component: 'checkout',
        class: 'health-check',
        custom_details: {
          check: 'checkout',
          status: 'fail',
          previous: 'pass',
          summary: 'p99 latency 840 ms over the last 15 minutes',
          evidence: ['histogram_quantile(0.99, …) = 0.84', 'pod checkout-7f9 not ready since 08:02'],
          investigation: first,
        },
      },
    });
    expect(await record(first)).toMatchObject({
      status: 'written',
      target: 'pagerduty_events',
      commentId: 'trigger:lestrade-check:checkout',
      attempts: 1,
    });
    // The same job again (a redelivered job) sends nothing.
    expect(await runDelivery(job(first), 2, false, d)).toBe('written');
    expect(pd.requests).toHaveLength(1);

    const second = await checkRun('checkout', {
      status: 'error',
      previous: 'fail',
      summary: 'no verdict',
      evidence: [],
    });
    await runDelivery(job(second), 1, false, d);
    expect(pd.alerts.get('lestrade-check:checkout')).toMatchObject({ status: 'triggered', incidents: 1 });
    expect(pd.alerts.get('lestrade-check:checkout')!.triggers[1]).toMatchObject({
      payload: { severity: 'error', summary: 'checkout: error — no verdict' },
    });

    const passed = await checkRun('checkout', {
      status: 'pass',
      previous: 'error',
      summary: 'all ready',
      evidence: [],
    });
    expect(await runDelivery(job(passed), 1, false, d)).toBe('written');
    expect(pd.requests.at(-1)!.body).toEqual({
      routing_key: ROUTING_KEY,
      event_action: 'resolve',
      dedup_key: 'lestrade-check:checkout',
    });
    expect(pd.alerts.get('lestrade-check:checkout')).toMatchObject({ status: 'resolved', incidents: 1 });
    expect(await record(passed)).toMatchObject({ status: 'written', commentId: 'resolve:lestrade-check:checkout' });
  });

  it('sends nothing for a first pass, pass after pass, a warn, or any event but the run completing', async () => {
    const d = deps();
    const quiet: Array<Omit<CheckOutcome, 'name'>> = [
      { status: 'pass', summary: 'ok', evidence: [] },
      { status: 'pass', previous: 'pass', summary: 'ok', evidence: [] },
      { status: 'warn', previous: 'pass', summary: 'p99 at 480 ms', evidence: [] },
      { status: 'pass', previous: 'warn', summary: 'ok', evidence: [] },
    ];
    for (const outcome of quiet)
      expect(await runDelivery(job(await checkRun('cart', outcome)), 1, false, d)).toBe('skipped');
    const failing = await checkRun('cart', { status: 'fail', previous: 'pass', summary: 'down', evidence: [] });
    for (const event of ['resolved', 'updated', 'answered'] as const)
      expect(await runDelivery(job(failing, event), 1, false, d)).toBe('skipped');
    expect(pd.requests).toEqual([]);
  });

  it('names the deploy in the summary and the details of an afterDeploy run; a warning check is a PagerDuty warning', async () => {
    const d = deps();
    const deploy = {
      id: 'gh-1',
      service: 'checkout',
      version: 'v2.41.0',
      environment: 'production',
      source: 'github' as const,
      receivedAt: '2026-12-07T08:00:00.000Z',
    };
    const id = await checkRun(
      'checkout-deploy',
      { status: 'fail', summary: 'error rate 4% since the rollout', evidence: [], deploy },
      'warning' as never,
    );
    await runDelivery(job(id), 1, false, d);
    expect(pd.requests[0]!.body).toMatchObject({
      payload: {
        summary: 'checkout-deploy v2.41.0: fail — error rate 4% since the rollout',
        severity: 'warning',
        source: 'checkout',
        custom_details: {
          deploy: { id: 'gh-1', service: 'checkout', version: 'v2.41.0', environment: 'production', source: 'github' },
        },
      },
    });
  });
});

describe('PagerDuty Events API v2: failures', () => {
  it('an event accepted and then dropped is sent again: still one incident, recorded written once answered', async () => {
    const d = deps();
    pd.faults.add({ method: 'POST', path: /\/v2\/enqueue$/, kind: 'accept-then-drop' });
    const id = await checkRun('checkout', { status: 'fail', previous: 'pass', summary: 'down', evidence: [] });
    await expect(runDelivery(job(id), 1, false, d)).rejects.toBeInstanceOf(RetryableError);
    expect(await record(id)).toMatchObject({
      status: 'pending',
      error: expect.stringContaining('PagerDuty Events API unreachable'),
    });
    expect(await runDelivery(job(id), 2, false, d)).toBe('written');
    expect(pd.requests).toHaveLength(2);
    expect(pd.alerts.get('lestrade-check:checkout')).toMatchObject({ status: 'triggered', incidents: 1 });
    expect(pd.alerts.get('lestrade-check:checkout')!.triggers).toHaveLength(2);
    expect(await record(id)).toMatchObject({ status: 'written', attempts: 2, error: null });
  });

  it('429 and 5xx are retried (with Retry-After); 400 is not, naming the routing key setting', async () => {
    const d = deps();
    const id = await checkRun('checkout', { status: 'fail', previous: 'pass', summary: 'down', evidence: [] });
    pd.faults.add(
      {
        method: 'POST',
        path: /enqueue/,
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '7' },
        body: { status: 'throttled', message: 'slow down' },
      },
      {
        method: 'POST',
        path: /enqueue/,
        kind: 'status',
        status: 503,
        body: { status: 'unavailable', message: 'try later' },
      },
    );
    const throttled = await runDelivery(job(id), 1, false, d).catch((e: unknown) => e);
    expect(throttled).toBeInstanceOf(RetryableError);
    expect((throttled as RetryableError).retryAfterMs).toBe(7000);
    await expect(runDelivery(job(id), 2, false, d)).rejects.toBeInstanceOf(RetryableError);
    expect(await runDelivery(job(id), 3, false, d)).toBe('written');

    const wrong = deps({ routingKey: 'R0UT1NGKEY0000000000000000000002' });
    const other = await checkRun('cart', { status: 'fail', previous: 'pass', summary: 'down', evidence: [] });
    const refused = await runDelivery(job(other), 1, false, wrong).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PermanentError);
    expect((refused as Error).message).toMatch(/HTTP 400.*unknown routing_key.*PAGERDUTY_ROUTING_KEY/);
    expect(await record(other)).toMatchObject({ status: 'failed' });
  });
});

describe('PagerDuty Events API v2: ordinary investigations', () => {
  async function alertRun(): Promise<string> {
    const { id } = await claimIssue(
      store,
      anIssue('KubePodOOMKilled:fp1', {
        source: 'alertmanager',
        title: 'KubePodOOMKilled',
        severity: 'high',
        labels: { namespace: 'shop' },
      }),
    );
    await runsOf(store).complete(id, {
      rca: '## Root cause\nThe pod ran out of memory.',
      toolCalls: [],
      usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 },
      linkHosts: [],
    });
    return id;
  }

  it('are not paged unless `investigations: true`', async () => {
    const id = await alertRun();
    expect(await runDelivery(job(id), 1, false, deps())).toBe('skipped');
    expect(pd.requests).toEqual([]);
  });

  it('with `investigations: true`: the RCA triggers (dedup by the issue), its issue resolving resolves', async () => {
    const d = deps({ investigations: true });
    const id = await alertRun();
    expect(await runDelivery(job(id), 1, false, d)).toBe('written');
    const key = 'lestrade-issue:alertmanager:KubePodOOMKilled:fp1';
    expect(pd.requests[0]!.body).toMatchObject({
      event_action: 'trigger',
      dedup_key: key,
      payload: {
        summary: 'KubePodOOMKilled — The pod ran out of memory.',
        severity: 'error',
        source: 'shop',
        class: 'investigation',
      },
    });
    expect(
      await resolveIssue(store, {
        source: 'alertmanager',
        identity: 'KubePodOOMKilled:fp1',
        fingerprint: 'KubePodOOMKilled:fp1',
      }),
    ).toBe(id);
    expect(await runDelivery(job(id, 'resolved'), 1, false, d)).toBe('written');
    expect(pd.requests[1]!.body).toEqual({ routing_key: ROUTING_KEY, event_action: 'resolve', dedup_key: key });
    expect(pd.alerts.get(key)).toMatchObject({ status: 'resolved', incidents: 1 });
  });
});

describe('the Events API double', () => {
  it('refuses what PagerDuty refuses: a bad severity, a trigger without payload, a short routing key', async () => {
    const post = (body: unknown) =>
      fetch(pd.enqueueUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const payload = { summary: 's', source: 'x', severity: 'major' };
    expect((await post({ routing_key: ROUTING_KEY, event_action: 'trigger', payload })).status).toBe(400);
    expect((await post({ routing_key: ROUTING_KEY, event_action: 'trigger' })).status).toBe(400);
    expect((await post({ routing_key: 'short', event_action: 'resolve', dedup_key: 'k' })).status).toBe(400);
    expect(pd.violations).toHaveLength(3);
    expect(pd.alerts.size).toBe(0);
    pd.violations.length = 0;
  });
});
