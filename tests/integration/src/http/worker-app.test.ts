import { describe, expect, it } from 'vitest';
import { sample } from '../../../helpers/metrics-text.js';
import { deliverOne, runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, startTestService, type TestService } from '../../../helpers/service.js';

/**
 * `lestrade worker`'s own HTTP server (server.workerPort): /healthz, /readyz (Redis and the LLM
 * endpoint, as serve's) and /metrics (its own process's metrics and the shared queue gauges), on a
 * real Redis, beside a `serve` that takes the webhooks and runs no worker.
 */
const h = serviceHarness();
let web: TestService | undefined;

const workerBase = (svc: TestService) => `http://127.0.0.1:${svc.workerPort}`;

async function startWorker(env: Record<string, string> = {}) {
  const { config } = runtimeConfig('llm: { readinessCacheSeconds: 0 }\n');
  h.llm = await startScriptedLlm(() => ({ content: '## Root cause\nthe worker found it' }));
  const llmEnv = { OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: h.llm.baseUrl, LESTRADE_CONFIG: config };
  h.svc = await startTestService(h.redis.url, { ...llmEnv, ...env }, { http: false, workers: true });
  return { worker: h.svc, base: workerBase(h.svc), llmEnv };
}

describe('lestrade worker HTTP', () => {
  it('serves /healthz and /readyz, turns 503 naming the LLM URL when the model server stops, and nothing else', async () => {
    const { worker, base } = await startWorker();
    expect(worker.port).toBeNull();
    expect(worker.workerPort).toBeGreaterThan(0);
    expect(await getJson(`${base}/healthz`)).toMatchObject({ status: 200, body: { status: 'ok' } });
    const ready = await getJson(`${base}/readyz`);
    expect(ready).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { redis: 'ok', llm: 'ok' }, queue: { waiting: 0 } },
    });
    const url = `${h.llm!.baseUrl}/models`;
    await h.llm!.close();
    h.llm = undefined;
    const down = await getJson(`${base}/readyz`);
    expect(down.status).toBe(503);
    expect(down.body.checks).toMatchObject({ redis: 'ok', llm: expect.stringContaining(`unreachable: GET ${url}`) });
    // No API, dashboard or webhooks on a worker.
    for (const path of ['/api/investigations', '/', '/queue']) expect((await fetch(`${base}${path}`)).status).toBe(404);
    const hook = await fetch(`${base}/webhooks/alertmanager`, { method: 'POST', body: '{}' });
    expect(hook.status).toBe(404);
  });

  it("serves /metrics: its own investigations, process metrics and the shared queue's jobs, behind the metrics token", async () => {
    const { worker, base, llmEnv } = await startWorker({ LESTRADE_METRICS_TOKEN: 'scrape-me' });
    web = await startTestService(h.redis.url, llmEnv, { http: true, workers: false });
    try {
      const id = await deliverOne(web.base);
      await statusIs(web.base, id, ['completed']);
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      const res = await fetch(`${base}/metrics`, { headers: { authorization: 'Bearer scrape-me' } });
      expect(res.status).toBe(200);
      const text = await res.text();
      // The worker ran it: counted here, not by the web process.
      expect(sample(text, 'lestrade_investigations_total', { source: 'alertmanager', outcome: 'completed' })).toBe(1);
      expect(sample(text, 'lestrade_llm_requests_total', { outcome: 'ok' })).toBe(1);
      expect(sample(text, 'lestrade_redis_up')).toBe(1);
      expect(sample(text, 'lestrade_queue_jobs', { queue: 'investigations', state: 'waiting' })).toBe(0);
      expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(text).toMatch(/^lestrade_build_info\{version="[^"]+"\} 1$/m);
      const webText = await (
        await fetch(`${web.base}/metrics`, { headers: { authorization: 'Bearer scrape-me' } })
      ).text();
      expect(sample(webText, 'lestrade_investigations_total', { outcome: 'completed' })).toBeNull();
      expect(worker.logs.find((l) => l.msg === 'lestrade worker started')?.listening).toBe(
        `http://127.0.0.1:${worker.workerPort} /healthz, /readyz and /metrics only (LESTRADE_WORKER_PORT, HOST), this machine only (HOST)`,
      );
    } finally {
      await web.close();
      web = undefined;
    }
  });
});
