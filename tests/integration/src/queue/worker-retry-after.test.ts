import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { amFixture } from '../../../helpers/fixtures.js';
import { startScriptedLlm, type Reply } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, startTestService, waitFor } from '../../../helpers/service.js';

// The delay before a retry is the LLM server's Retry-After when it sent one, whichever of that and
// the exponential backoff (queue.backoffMs) is longer; without one, it is the backoff.

const h = serviceHarness();

/** Serves with queue.backoffMs set, the SDK's own retries off, and an LLM that fails once with `first`. */
async function serveFailingOnce(backoffMs: number, first: Reply) {
  const callTimes: number[] = [];
  h.llm = await startScriptedLlm(() => {
    callTimes.push(Date.now());
    return callTimes.length === 1 ? first : { content: 'done after a retry' };
  });
  const config = join(mkdtempSync(join(tmpdir(), 'lestrade-retry-')), 'lestrade.yaml');
  writeFileSync(config, `queue: { backoffMs: ${backoffMs} }\n`);
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: h.llm.baseUrl,
    LESTRADE_MODEL: 'scripted',
    LESTRADE_LLM_MAX_RETRIES: '0',
    LESTRADE_CONFIG: config,
  });
  const one = { ...amFixture('group-next').body, alerts: amFixture('group-next').body.alerts.slice(0, 1) };
  const res = await fetch(`${h.svc.base}/webhooks/alertmanager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(one),
  });
  const { queued } = (await res.json()) as { queued: string[] };
  return { id: queued[0]!, callTimes };
}

const completed = (id: string, timeoutMs: number) =>
  waitFor(
    'the investigation to complete',
    async () => {
      const inv = (await getJson(`${h.svc!.base}/api/investigations/${id}`)).body;
      return inv.status === 'completed' && inv;
    },
    timeoutMs,
  );

describe('the retry of an investigation the LLM refused for now', () => {
  it('waits the Retry-After when it is longer than the backoff', async () => {
    // A 503: a 429 is waited out in the same attempt by the shared rate limiter (issue 21), not retried by the queue.
    const { id, callTimes } = await serveFailingOnce(50, { status: 503, headers: { 'retry-after': '2' } });
    const inv = await completed(id, 20_000);
    expect(inv).toMatchObject({ rca: 'done after a retry', attempts: 2 });
    expect(callTimes).toHaveLength(2);
    const gap = callTimes[1]! - callTimes[0]!;
    expect(gap).toBeGreaterThanOrEqual(2_000);
    expect(h.svc!.logs.find((l) => l.msg === 'investigation will be retried')).toMatchObject({ retryAfterMs: 2_000 });
  });

  it('waits only the Retry-After when the backoff would be far longer', async () => {
    const { id, callTimes } = await serveFailingOnce(120_000, { status: 503, headers: { 'retry-after': '1' } });
    await completed(id, 25_000);
    const gap = callTimes[1]! - callTimes[0]!;
    expect(gap).toBeGreaterThanOrEqual(1_000);
    expect(gap).toBeLessThan(20_000);
  });

  it('takes a Retry-After given in milliseconds (retry-after-ms)', async () => {
    const { id, callTimes } = await serveFailingOnce(120_000, { status: 429, headers: { 'retry-after-ms': '1500' } });
    await completed(id, 25_000);
    expect(callTimes[1]! - callTimes[0]!).toBeGreaterThanOrEqual(1_500);
    expect(callTimes[1]! - callTimes[0]!).toBeLessThan(20_000);
  });

  it('backs off exponentially from queue.backoffMs when the server said nothing', async () => {
    const { id, callTimes } = await serveFailingOnce(2_500, { status: 500 });
    await completed(id, 25_000);
    expect(callTimes[1]! - callTimes[0]!).toBeGreaterThanOrEqual(2_500);
    expect(h.svc!.logs.find((l) => l.msg === 'investigation will be retried')?.retryAfterMs).toBeUndefined();
  });
});
