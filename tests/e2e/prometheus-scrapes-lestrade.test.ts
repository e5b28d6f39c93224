import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryOne, startPrometheus, type TestPrometheus } from '../helpers/prometheus.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { deliverOne, runtimeConfig, statusIs } from '../helpers/runtime.js';
import { startScriptedLlm, toolResults, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { startTestService, waitFor, type TestService } from '../helpers/service.js';
import { stopAll } from '../helpers/stop-all.js';

/**
 * A real Prometheus scrapes a running service (with the bearer token) and loads the shipped
 * alerting rules; after one webhook delivery and one investigation (one tool call, two LLM
 * requests), PromQL returns what happened.
 */
const TOKEN = 'metrics-e2e-token';
const RULES = readFileSync(new URL('../../deploy/monitoring/lestrade-rules.yml', import.meta.url), 'utf8');
let redis: TestRedis;
let prom: TestPrometheus;
let llm: ScriptedLlm;
let svc: TestService;

beforeAll(async () => {
  redis = await startRedis();
  llm = await startScriptedLlm((req) =>
    toolResults(req).length === 0
      ? { toolCalls: [{ name: 'say', arguments: { word: 'evidence' } }], usage: { prompt: 120, completion: 8 } }
      : { content: '## Root cause\nthe evidence', usage: { prompt: 200, completion: 30 } },
  );
  const { config } = runtimeConfig(
    'pricing: { currency: EUR, models: { scripted-model: { inputPerMillion: 1000, outputPerMillion: 2000 } } }\n',
  );
  svc = await startTestService(redis.url, {
    OPENAI_API_KEY: 'sk-e2e',
    OPENAI_BASE_URL: llm.baseUrl,
    LESTRADE_MODEL: 'scripted-model',
    LESTRADE_CONFIG: config,
    LESTRADE_METRICS_TOKEN: TOKEN,
  });
  prom = await startPrometheus({
    rules: RULES,
    scrape: [{ job: 'lestrade', target: `127.0.0.1:${svc.port}`, bearerToken: TOKEN }],
  });
}, 90_000);

afterAll(async () => {
  await stopAll(svc, prom, llm, redis);
});

/** Waits until Prometheus has scraped a value for the query, then returns it. */
const scraped = (promql: string, expected: number) =>
  waitFor(`${promql} == ${expected}`, async () => (await queryOne(prom, promql)) === expected, 30_000);

describe('Prometheus scrapes lestrade serve', () => {
  it('counts a webhook delivery, an investigation, its LLM requests, tokens, cost and tool call', async () => {
    await waitFor(
      'the lestrade target to be up',
      async () => (await queryOne(prom, 'up{job="lestrade"}')) === 1,
      30_000,
    );
    const id = await deliverOne(svc.base);
    await statusIs(svc.base, id, ['completed'], 30_000);

    await scraped('lestrade_webhook_deliveries_total{job="lestrade",source="alertmanager",outcome="accepted"}', 1);
    await scraped('sum(lestrade_investigations_total{job="lestrade",outcome="completed"})', 1);
    expect(
      await queryOne(
        prom,
        'lestrade_investigations_total{source="alertmanager",phase="investigation",outcome="completed"}',
      ),
    ).toBe(1);
    expect(await queryOne(prom, 'lestrade_investigation_steps_sum{source="alertmanager"}')).toBe(2);
    expect(await queryOne(prom, 'lestrade_llm_requests_total{model="scripted-model",outcome="ok"}')).toBe(2);
    expect(await queryOne(prom, 'lestrade_llm_tokens_total{model="scripted-model",kind="input"}')).toBe(320);
    expect(await queryOne(prom, 'lestrade_llm_tokens_total{model="scripted-model",kind="output"}')).toBe(38);
    // 320 input tokens at 1000 EUR per million, 38 output at 2000.
    expect(await queryOne(prom, 'lestrade_llm_cost_total{model="scripted-model",currency="EUR"}')).toBeCloseTo(
      0.32 + 0.076,
      9,
    );
    expect(await queryOne(prom, 'lestrade_tool_calls_total{toolset="say",tool="say",status="success"}')).toBe(1);
    expect(await queryOne(prom, 'lestrade_webhook_duration_seconds_count{source="alertmanager"}')).toBe(1);
    expect(await queryOne(prom, 'lestrade_redis_up')).toBe(1);
    // The job is acknowledged just after the record completes: the next scrapes see it leave "active".
    await scraped('lestrade_queue_jobs{queue="investigations",state="active"}', 0);
    expect(await queryOne(prom, 'lestrade_approvals_pending')).toBe(0);
    expect(await queryOne(prom, 'count(lestrade_build_info{version!=""})')).toBe(1);
    expect(await queryOne(prom, 'count(process_cpu_seconds_total{job="lestrade"})')).toBe(1);
  }, 90_000);

  it('evaluates every shipped alerting rule without error against the real series', async () => {
    const rules = await waitFor(
      'the rules to be evaluated',
      async () => {
        const body = (await (await fetch(`${prom.url}/api/v1/rules`)).json()) as {
          data: { groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string }> }> };
        };
        const all = body.data.groups.flatMap((g) => g.rules);
        return all.length > 0 && all.every((r) => r.health !== 'unknown') && all;
      },
      30_000,
    );
    expect(rules.map((r) => ({ name: r.name, health: r.health, error: r.lastError ?? '' }))).toEqual(
      rules.map((r) => ({ name: r.name, health: 'ok', error: '' })),
    );
    expect(rules).toHaveLength(RULES.match(/^\s+- alert: /gm)?.length ?? 0);
    expect(rules.length).toBeGreaterThanOrEqual(10);
  });

  it('refuses a scrape without the token', async () => {
    expect((await fetch(`${svc.base}/metrics`)).status).toBe(401);
    const ok = await fetch(`${svc.base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  });
});
