import { describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { deliverOne, runtimeConfig } from '../../../helpers/runtime.js';
import { runCli } from '../../../helpers/run-cli.js';
import { startScriptedLlm } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { startTestService, waitFor } from '../../../helpers/service.js';
import { sample } from '../../../helpers/metrics-text.js';

// POST /api/investigations/:id/feedback, `lestrade feedback` and a dashboard session: each verdict lands once,
// under the token's name, and is counted in lestrade_feedback_total{verdict,source}.

const h = serviceHarness();
const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-9876543210';

async function serve(llmAnswers = true) {
  const rt = runtimeConfig();
  h.llm = await startScriptedLlm(() => ({ content: '## Root cause\nthe disk is full' }));
  h.svc = await startTestService(h.redis.url, {
    ...(llmAnswers ? { OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: h.llm.baseUrl } : {}),
    LESTRADE_CONFIG: rt.config,
    LESTRADE_API_TOKENS: `alice:${ALICE},bob:${BOB}`,
  });
  return h.svc;
}

async function api(path: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${h.svc!.base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

async function metricsText(): Promise<string> {
  return (await fetch(`${h.svc!.base}/metrics`)).text();
}

describe('feedback through the API and the CLI', { timeout: 90_000 }, () => {
  it('records the latest verdict per person once, by token name, and counts it', async () => {
    const s = await serve();
    const id = await deliverOne(s.base);
    await waitFor('the RCA', async () => (await api(`/api/investigations/${id}`, ALICE)).body.status === 'completed');
    const path = `/api/investigations/${id}/feedback`;

    const first = await api(path, ALICE, {
      verdict: 'wrong',
      rootCause: 'the DNS',
      by: { via: 'api', user: 'mallory' },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      changed: true,
      feedback: [{ verdict: 'wrong', rootCause: 'the DNS', by: { via: 'api', user: 'alice' } }],
    });
    // The double POST: nothing changes, not even the time.
    const again = await api(path, ALICE, { verdict: 'wrong', rootCause: 'the DNS' });
    expect(again.body).toEqual({ changed: false, feedback: first.body.feedback });

    // The CLI with bob's token, by a short id: via cli, as bob.
    const cli = await runCli(['feedback', id.slice(0, 8), 'partly', '--note', 'also the cache', '--url', s.base], {
      LESTRADE_API_TOKEN: BOB,
    });
    expect(cli.stderr).toBe('');
    expect(cli.stdout).toContain('recorded: partly (2 people have rated it)');
    const cliAgain = await runCli(['feedback', id, 'partly', '--note', 'also the cache', '--url', s.base], {
      LESTRADE_API_TOKEN: BOB,
    });
    expect(cliAgain.stdout).toContain('unchanged');

    const inv = (await api(`/api/investigations/${id}`, BOB)).body;
    expect(inv.feedback.map((f: any) => [f.by, f.verdict, f.note ?? null])).toEqual([
      [{ via: 'api', user: 'alice' }, 'wrong', null],
      [{ via: 'cli', user: 'bob' }, 'partly', 'also the cache'],
    ]);
    // Alice changes her mind: her entry is replaced, not added.
    expect((await api(path, ALICE, { verdict: 'correct' })).body.feedback).toHaveLength(2);

    const text = await metricsText();
    expect(sample(text, 'lestrade_feedback_total', { verdict: 'wrong', source: 'alertmanager' })).toBe(1);
    expect(sample(text, 'lestrade_feedback_total', { verdict: 'partly', source: 'alertmanager' })).toBe(1);
    expect(sample(text, 'lestrade_feedback_total', { verdict: 'correct', source: 'alertmanager' })).toBe(1);
    expect(JSON.stringify(await h.admin.hgetall(keys.feedback(id)))).not.toContain(ALICE);
  });

  it('refuses bad input naming the field, an unknown id, no token, and an investigation without an RCA', async () => {
    const s = await serve(false);
    const id = await deliverOne(s.base);
    const path = `/api/investigations/${id}/feedback`;
    const bad = await api(path, ALICE, { verdict: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^verdict: must be "correct", "partly" or "wrong"/);
    const long = await api(path, ALICE, { verdict: 'wrong', rootCause: 'x'.repeat(2001) });
    expect(long).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^rootCause: .*2000/) } });
    const queued = await api(path, ALICE, { verdict: 'correct' });
    expect(queued.status).toBe(409);
    expect(queued.body.error).toContain('no RCA to rate yet (status: queued)');
    expect(
      (await api('/api/investigations/00000000-0000-4000-8000-000000000000/feedback', ALICE, { verdict: 'correct' }))
        .status,
    ).toBe(404);
    expect((await api(path, 'not-a-token', { verdict: 'correct' })).status).toBe(401);
    expect(await h.admin.exists(keys.feedback(id))).toBe(0);
    const cli = await runCli(['feedback', id, 'maybe', '--url', s.base], { LESTRADE_API_TOKEN: ALICE });
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain('correct, partly, wrong');
  });
});
