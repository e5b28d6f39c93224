import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { amFixture } from '../../../helpers/fixtures.js';
import { startScriptedLlm, type Reply, type Script } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, startTestService, waitFor, type TestService } from '../../../helpers/service.js';

const h = serviceHarness();

async function serveWith(script: Reply[] | Script, extra: Record<string, string> = {}) {
  h.llm = await startScriptedLlm(script);
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-test-secret-key',
    OPENAI_BASE_URL: h.llm.baseUrl,
    LESTRADE_MODEL: 'scripted',
    ...extra,
  });
  return h.svc;
}
const deliver = (s: TestService, name: Parameters<typeof amFixture>[0] = 'group-next') =>
  fetch(`${s.base}/webhooks/alertmanager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(amFixture(name).body),
  });
const finished = (s: TestService, n: number) =>
  waitFor(`${n} finished investigations`, async () => {
    const items = (await getJson(`${s.base}/api/investigations`)).body.items as Array<{ id: string; status: string }>;
    return items.length === n && items.every((i) => i.status === 'completed' || i.status === 'failed') && items;
  });

describe('workers', () => {
  it('investigate queued issues and store the RCA, tool calls and token usage', async () => {
    const s = await serveWith((req) => {
      const user = req.messages.find((m) => m.role === 'user')!.content!;
      return req.messages.some((m) => m.role === 'tool')
        ? { content: `## Root cause\nlooked at ${/pod=(\S+)/.exec(user)?.[1]}` }
        : { toolCalls: [{ name: 'missing_tool', arguments: {} }] };
    });
    await deliver(s);
    const items = await finished(s, 2);
    const inv = (await getJson(`${s.base}/api/investigations/${items[0]!.id}`)).body;
    expect(inv).toMatchObject({
      status: 'completed',
      rca: expect.stringMatching(/^## Root cause\nlooked at payment-api-/),
      toolCalls: [{ name: 'missing_tool', status: 'error', params: {}, durationMs: expect.any(Number) }],
      usage: { promptTokens: 200, completionTokens: 20, llmCalls: 2 },
      error: null,
      issue: { source: 'alertmanager', labels: { alertname: 'KubePodCrashLooping' } },
    });
    expect(inv.startedAt).toBeTruthy();
    expect(inv.finishedAt).toBeTruthy();
    expect(JSON.stringify(inv)).not.toContain('sk-test-secret-key');
    expect(JSON.stringify(s.logs)).not.toContain('sk-test-secret-key');
    const prompt = h.llm!.requests[0]!.messages[1]!.content!;
    expect(prompt).toMatch(/alertname=KubePodCrashLooping/);
    expect(prompt).toMatch(/## Alert explanation/);
  });

  // Since issue 21 the shared rate limiter takes a 429: the same attempt waits out Retry-After and goes on.
  it('wait out an LLM 429 in the same attempt, honouring its Retry-After, and complete', async () => {
    let calls = 0;
    const s = await serveWith(
      () => (++calls === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { content: 'done after 429' }),
      { LESTRADE_LLM_MAX_RETRIES: '0' },
    );
    const started = Date.now();
    await fetch(`${s.base}/webhooks/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ...amFixture('group-next').body,
        alerts: amFixture('group-next').body.alerts.slice(0, 1),
      }),
    });
    const [item] = await finished(s, 1);
    const inv = (await getJson(`${s.base}/api/investigations/${item!.id}`)).body;
    expect(inv).toMatchObject({ status: 'completed', rca: 'done after 429', attempts: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(calls).toBe(2);
    expect(s.logs.some((l) => l.msg === 'LLM answered 429: waiting for the provider to reset')).toBe(true);
    expect(s.logs.some((l) => l.msg === 'investigation will be retried')).toBe(false);
  });

  it('fail a permanent LLM error at once, keeping the reason visible', async () => {
    const s = await serveWith([{ status: 401, errorMessage: 'Incorrect API key provided' }]);
    await fetch(`${s.base}/webhooks/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ...amFixture('group-next').body,
        alerts: amFixture('group-next').body.alerts.slice(0, 1),
      }),
    });
    const [item] = await finished(s, 1);
    const inv = (await getJson(`${s.base}/api/investigations/${item!.id}`)).body;
    expect(inv).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: expect.stringMatching(/401.*Incorrect API key/),
    });
    expect(h.llm!.requests).toHaveLength(1);
  });

  it('redact the API key from an error that echoes it, in the record, the logs and the AOF', async () => {
    const KEY = 'sk-test-secret-key';
    let calls = 0;
    const s = await serveWith(
      () =>
        ++calls === 1
          ? { status: 500, headers: { 'retry-after': '0' }, errorMessage: `upstream said the key ${KEY} is throttled` }
          : {
              status: 401,
              errorMessage: `Incorrect API key provided: ${KEY}. Find your key at https://x:${KEY}@llm.example/keys`,
            },
      {
        LESTRADE_LLM_MAX_RETRIES: '0',
        ALERTMANAGER_WEBHOOK_TOKEN: 'hook-token-123',
        LESTRADE_API_TOKEN: 'api-token-456',
      },
    );
    const hook = { authorization: 'Bearer hook-token-123', 'content-type': 'application/json' };
    const body = { ...amFixture('group-next').body, alerts: amFixture('group-next').body.alerts.slice(0, 1) };
    const { queued } = await (
      await fetch(`${s.base}/webhooks/alertmanager`, { method: 'POST', headers: hook, body: JSON.stringify(body) })
    ).json();
    const api = (path: string) =>
      fetch(`${s.base}/api/investigations${path}`, { headers: { authorization: 'Bearer api-token-456' } }).then((r) =>
        r.json(),
      );
    const inv = await waitFor(
      'the investigation to fail',
      async () => {
        const i = await api(`/${queued[0]}`);
        return i.status === 'failed' && i;
      },
      30_000,
    );
    expect(inv.error).toMatch(
      /401 Incorrect API key provided: \[redacted\]\. Find your key at https:\/\/x:\[redacted\]@llm\.example/,
    );
    expect(s.logs.some((l) => l.msg === 'investigation will be retried' && String(l.err).includes('[redacted]'))).toBe(
      true,
    );
    const dir = ((await h.admin.config('GET', 'dir')) as string[])[1]!;
    const aof = readdirSync(join(dir, 'appendonlydir'))
      .map((f) => readFileSync(join(dir, 'appendonlydir', f), 'latin1'))
      .join('');
    expect(aof).toContain('Incorrect API key provided');
    for (const secret of [KEY, 'hook-token-123', 'api-token-456']) {
      expect(JSON.stringify(inv)).not.toContain(secret);
      expect(JSON.stringify(s.logs)).not.toContain(secret);
      expect(aof).not.toContain(secret);
    }
  });

  it('run investigations queued while no LLM was configured, once one is', async () => {
    const noLlm = await startTestService(h.redis.url, {});
    await deliver(noLlm);
    await new Promise((r) => setTimeout(r, 300));
    const waiting = (await getJson(`${noLlm.base}/api/investigations`)).body.items as Array<{ status: string }>;
    expect(waiting.map((i) => i.status)).toEqual(['queued', 'queued']);
    await noLlm.close();
    const s = await serveWith([{ content: 'first' }, { content: 'second' }]);
    const items = await finished(s, 2);
    expect(items.every((i) => i.status === 'completed')).toBe(true);
  });
});
