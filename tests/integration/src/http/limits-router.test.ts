import { describe, expect, it } from 'vitest';
import { sample } from '../../../helpers/metrics-text.js';
import { deliverOne, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, startTestService } from '../../../helpers/service.js';

const h = serviceHarness();

describe('the LLM rate limit, visible', () => {
  it('GET /api/limits, /readyz and /metrics show requests and tokens used against the limits', async () => {
    const headers = { 'x-ratelimit-limit-requests': '500', 'x-ratelimit-limit-tokens': '30000' };
    h.llm = await startScriptedLlm(() => ({ content: 'the RCA', usage: { prompt: 1200, completion: 300 }, headers }));
    h.svc = await startTestService(h.redis.url, {
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: h.llm.baseUrl,
      LESTRADE_LLM_RPM: '100',
    });
    const id = await deliverOne(h.svc.base);
    await statusIs(h.svc.base, id, ['completed']);
    const limits = await getJson(`${h.svc.base}/api/limits`);
    expect(limits.status).toBe(200);
    expect(limits.body.llm).toMatchObject({
      model: 'gpt-4o',
      // Ours where configured, else what the provider announced.
      requestsPerMinute: 100,
      tokensPerMinute: 30_000,
      requestsUsed: 1,
      // The estimate is corrected from the answer's usage.
      tokensUsed: 1_500,
      waiting: 0,
      provider: { limitRequests: 500, limitTokens: 30_000, blockedUntil: null },
      reached: false,
    });
    const ready = await getJson(`${h.svc.base}/readyz`);
    expect(ready.body.llmLimits).toMatchObject({ requestsUsed: 1, requestsPerMinute: 100 });
    const text = await (await fetch(`${h.svc.base}/metrics`)).text();
    expect(sample(text, 'lestrade_llm_limit', { model: 'gpt-4o', kind: 'requests' })).toBe(100);
    expect(sample(text, 'lestrade_llm_limit', { model: 'gpt-4o', kind: 'tokens' })).toBe(30_000);
    expect(sample(text, 'lestrade_llm_limit_used', { model: 'gpt-4o', kind: 'requests' })).toBe(1);
    expect(sample(text, 'lestrade_llm_limit_used', { model: 'gpt-4o', kind: 'tokens' })).toBe(1_500);
    expect(sample(text, 'lestrade_llm_limiter_waiting', { model: 'gpt-4o' })).toBe(0);
  });
});
