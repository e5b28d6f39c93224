import { describe, expect, it } from 'vitest';
import { amFixture } from '../../../helpers/fixtures.js';
import { sample } from '../../../helpers/metrics-text.js';
import { deliverOne, runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, startTestService, waitFor, type TestService } from '../../../helpers/service.js';

const h = serviceHarness();
const TOKEN = 'am-token';

const scrape = async (svc: TestService) => {
  const res = await fetch(`${svc.base}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
};
const deliver = (
  svc: TestService,
  body: unknown,
  headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` },
) =>
  fetch(`${svc.base}/webhooks/alertmanager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('GET /metrics', () => {
  it('counts each webhook delivery by what became of it', async () => {
    h.svc = await startTestService(h.redis.url, { ALERTMANAGER_WEBHOOK_TOKEN: TOKEN });
    const svc = h.svc;
    expect((await deliver(svc, amFixture('group-next').body)).status).toBe(200);
    expect((await deliver(svc, amFixture('group-next').body)).status).toBe(200);
    expect((await deliver(svc, amFixture('group-next').body, {})).status).toBe(401);
    expect((await deliver(svc, { ...amFixture('group-next').body, alerts: 'no' })).status).toBe(400);
    expect((await deliver(svc, { ...amFixture('group-next').body, huge: 'x'.repeat(2 * 1024 * 1024) })).status).toBe(
      413,
    );
    expect(
      (
        await fetch(`${svc.base}/webhooks/alertmanager`, {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: 'x',
        })
      ).status,
    ).toBe(415);
    const text = await scrape(svc);
    const count = (outcome: string) =>
      sample(text, 'lestrade_webhook_deliveries_total', { source: 'alertmanager', outcome });
    expect({
      accepted: count('accepted'),
      duplicate: count('duplicate'),
      rejected_auth: count('rejected_auth'),
      rejected_schema: count('rejected_schema'),
      too_large: count('too_large'),
      rejected_content_type: count('rejected_content_type'),
    }).toEqual({
      accepted: 1,
      duplicate: 1,
      rejected_auth: 1,
      rejected_schema: 1,
      too_large: 1,
      rejected_content_type: 1,
    });
    expect(sample(text, 'lestrade_webhook_duration_seconds_count', { source: 'alertmanager' })).toBe(6);
    // Read from Redis at scrape time: the two queued alerts of the first delivery (no LLM, so they wait).
    await waitFor('the queued jobs', async () => {
      const t = await scrape(svc);
      return (
        (sample(t, 'lestrade_queue_jobs', { queue: 'investigations', state: 'prioritized' }) ?? 0) +
          (sample(t, 'lestrade_queue_jobs', { queue: 'investigations', state: 'waiting' }) ?? 0) ===
        2
      );
    });
    expect(sample(text, 'lestrade_redis_up')).toBe(1);
    expect(sample(text, 'lestrade_build_info', { version: '0.1.0' })).toBe(1);
    expect(text).toContain('process_cpu_seconds_total');
    // No ids in labels: neither the investigations' nor the alerts'.
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
  });

  it('still answers while Redis is down, saying so in lestrade_redis_up, within its bound', async () => {
    h.svc = await startTestService(h.redis.url, {});
    await h.redis.kill();
    try {
      const started = Date.now();
      const text = await scrape(h.svc);
      expect(Date.now() - started).toBeLessThan(4_000);
      expect(sample(text, 'lestrade_redis_up')).toBe(0);
      expect(sample(text, 'lestrade_queue_jobs', { queue: 'investigations', state: 'waiting' })).toBeNull();
      expect(sample(text, 'lestrade_build_info', { version: '0.1.0' })).toBe(1);
    } finally {
      await h.redis.start();
    }
    await waitFor('Redis to be readable again', async () => sample(await scrape(h.svc!), 'lestrade_redis_up') === 1);
  });

  it('needs the bearer token when LESTRADE_METRICS_TOKEN is set, and only that one', async () => {
    h.svc = await startTestService(h.redis.url, {
      LESTRADE_METRICS_TOKEN: 'scrape-me, rotated',
      LESTRADE_API_TOKEN: 'api-token',
    });
    const get = (authorization?: string) =>
      fetch(`${h.svc!.base}/metrics`, { headers: authorization ? { authorization } : {} });
    expect((await get()).status).toBe(401);
    expect((await get('Bearer api-token')).status).toBe(401);
    expect((await get('Bearer scrape-me')).status).toBe(200);
    expect((await get('Bearer rotated')).status).toBe(200);
  });

  it('counts pending approvals from Redis until a human decides', async () => {
    const { config } = runtimeConfig('approvals: { timeoutSeconds: 600 }\n');
    h.llm = await startScriptedLlm((req) =>
      req.messages.some((m) => m.role === 'tool')
        ? { content: '## Root cause\nrestarted' }
        : { toolCalls: [{ name: 'restart', arguments: { name: 'web' }, id: 'call_restart' }] },
    );
    h.svc = await startTestService(h.redis.url, {
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: h.llm.baseUrl,
      LESTRADE_CONFIG: config,
    });
    const svc = h.svc;
    const id = await deliverOne(svc.base);
    await statusIs(svc.base, id, ['awaiting_approval']);
    await waitFor('one pending approval', async () => sample(await scrape(svc), 'lestrade_approvals_pending') === 1);
    expect(sample(await scrape(svc), 'lestrade_approvals_oldest_pending_seconds')).toBeGreaterThanOrEqual(0);
    const decided = await fetch(`${svc.base}/api/investigations/${id}/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decisions: [{ toolCallId: 'call_restart', approved: true }] }),
    });
    expect(decided.status).toBeLessThan(300);
    await waitFor('no pending approval', async () => sample(await scrape(svc), 'lestrade_approvals_pending') === 0);
    await statusIs(svc.base, id, ['completed']);
    const text = await scrape(svc);
    // The decided pause's expiry is gone with it: no delayed job is left for an approval nobody waits on.
    expect(sample(text, 'lestrade_queue_jobs', { queue: 'approval-expiries', state: 'delayed' })).toBe(0);
    expect(sample(text, 'lestrade_investigations_total', { outcome: 'awaiting_approval' })).toBe(1);
    expect(sample(text, 'lestrade_investigations_total', { outcome: 'completed' })).toBe(1);
    expect(sample(text, 'lestrade_tool_calls_total', { tool: 'restart', status: 'approval_required' })).toBe(1);
    // touch prints nothing: the approved call ran and returned no data.
    expect(sample(text, 'lestrade_tool_calls_total', { toolset: 'say', tool: 'restart', status: 'no_data' })).toBe(1);
    // The call refused for approval never ran: its time is apart from the call that did.
    const timed = (outcome: string) =>
      sample(text, 'lestrade_tool_call_duration_seconds_count', { toolset: 'say', tool: 'restart', outcome });
    expect({ waited: timed('approval_required'), ran: timed('no_data') }).toEqual({ waited: 1, ran: 1 });
  });
});

describe('GET /readyz', () => {
  it('checks that the LLM endpoint answers, and names its URL when it does not', async () => {
    const { config } = runtimeConfig('llm: { readinessCacheSeconds: 0 }\n');
    h.llm = await startScriptedLlm([]);
    const url = `${h.llm.baseUrl}/models`;
    h.svc = await startTestService(h.redis.url, {
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: h.llm.baseUrl,
      LESTRADE_CONFIG: config,
    });
    const ready = await getJson(`${h.svc.base}/readyz`);
    expect(ready).toMatchObject({ status: 200, body: { status: 'ready', checks: { redis: 'ok', llm: 'ok' } } });
    expect(h.llm.modelListings()).toBe(1);
    await h.llm.close();
    h.llm = undefined;
    const down = await getJson(`${h.svc.base}/readyz`);
    expect(down.status).toBe(503);
    expect(down.body.checks.redis).toBe('ok');
    expect(down.body.checks.llm).toContain(`unreachable: GET ${url}`);
    // What a load balancer in front of the webhooks asks: Redis takes them; the model is reported, not required.
    const intake = await getJson(`${h.svc.base}/readyz?scope=intake`);
    expect(intake.status).toBe(200);
    expect(intake.body.checks.llm).toContain(`unreachable: GET ${url}`);
  });

  it("keeps the probe's answer for llm.readinessCacheSeconds", async () => {
    h.llm = await startScriptedLlm([]);
    h.svc = await startTestService(h.redis.url, { OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: h.llm.baseUrl });
    await Promise.all([getJson(`${h.svc.base}/readyz`), getJson(`${h.svc.base}/readyz`)]);
    expect((await getJson(`${h.svc.base}/readyz`)).body.checks.llm).toBe('ok');
    expect(h.llm.modelListings()).toBe(1);
  });
});
