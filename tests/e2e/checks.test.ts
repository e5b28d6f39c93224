import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startScriptedLlm, type ChatRequest, type Reply, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor, type TestService } from '../helpers/service.js';
import { launchChromium } from '../helpers/browser.js';
import { runCli } from '../helpers/run-cli.js';
import { signBody } from '../../sources/deploy/auth.js';
import { stopAll } from '../helpers/stop-all.js';

/**
 * A health check end to end (docs/checks.md): each run is an investigation of source check whose verdict comes
 * through report_check_result; the signed webhook destination hears of transitions only (on_change, two fails in a
 * row), and a run that ends without a verdict is error.
 */
let redis: TestRedis;
let llm: ScriptedLlm;
let svc: TestService;
let hook: Server;
const received: Array<Record<string, any>> = [];
/** What the model reports on each run, in order; null: it answers without a verdict. */
const verdicts: Array<'pass' | 'warn' | 'fail' | null> = [];
let runsSeen = 0;

/** A stand-in for the model's token counts: about 4 characters a token of what was sent (messages and tool schemas). */
const promptTokens = (req: ChatRequest) => Math.ceil(JSON.stringify([req.messages, req.tools ?? []]).length / 4);

function script(req: ChatRequest): Reply {
  const offered = (req.tools ?? []).some((t) => t.function.name === 'report_check_result');
  const last = req.messages.at(-1);
  // A new run: its first request has only the system prompt and the check's question.
  if (req.messages.length === 2) runsSeen += 1;
  const verdict = verdicts[runsSeen - 1];
  if (offered && verdict && last?.role === 'user')
    return {
      toolCalls: [
        {
          name: 'report_check_result',
          arguments: { status: verdict, summary: `p99 is ${verdict}`, evidence: [`latency ${verdict}`] },
        },
      ],
      usage: { prompt: promptTokens(req), completion: 60 },
    };
  return { content: `## Verdict\n${verdict ?? 'no idea'}`, usage: { prompt: promptTokens(req), completion: 40 } };
}

beforeAll(async () => {
  redis = await startRedis();
  llm = await startScriptedLlm(script);
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body) as Record<string, any>);
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-checks-'));
  const config = join(dir, 'lestrade.yaml');
  // A schedule that never comes during the test (1 January): runs are asked for through the API.
  writeFileSync(
    config,
    [
      'checks:',
      '  - name: checkout',
      '    question: Is the p99 latency of checkout under 500 ms over the last 15 minutes?',
      "    schedule: '0 0 1 1 *'",
      '  - name: checkout-rollout',
      '    question: Is the error rate of checkout under 1% since its rollout?',
      '    afterDeploy: true',
      '    services: [checkout]',
      '    delaySeconds: 0',
      // The default model's price as docs/checks.md quotes it.
      'pricing: { currency: USD, models: { gpt-4o: { inputPerMillion: 2.5, outputPerMillion: 10 } } }',
    ].join('\n'),
  );
  svc = await startTestService(redis.url, {
    LESTRADE_CONFIG: config,
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: llm.baseUrl,
    LESTRADE_WEBHOOK_URL: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`,
    LESTRADE_WEBHOOK_SECRET: 'checks-secret',
    LESTRADE_DEPLOY_WEBHOOK_SECRET: 'deploy-secret',
    LOG_LEVEL: 'warn',
  });
}, 60_000);
afterAll(async () => {
  await stopAll(svc, llm, redis);
  await new Promise((r) => hook.close(r));
});

/** Asks for a run now and waits until the check's history has it; the run's history entry. */
async function runCheck(verdict: 'pass' | 'warn' | 'fail' | null): Promise<Record<string, any>> {
  verdicts.push(verdict);
  const n = verdicts.length;
  const res = await fetch(`${svc.base}/api/checks/checkout/run`, { method: 'POST' });
  expect(res.status).toBe(202);
  return waitFor(`run ${n} settled`, async () => {
    const { body } = await getJson(`${svc.base}/api/checks`);
    const history = body.items[0].history as Array<Record<string, any>>;
    return history.length === n ? history[0] : null;
  });
}

describe('health checks through the whole service', () => {
  it('notifies a transition once (after two fails in a row) and the recovery; steady states and a flap say nothing', async () => {
    for (const v of ['pass', 'fail', 'fail', 'fail', 'pass', 'pass'] as const) await runCheck(v);
    await waitFor('two webhook deliveries', async () => received.length >= 2);
    // Whatever was still on its way has had time to arrive: one more run settles after them.
    await runCheck('pass');
    const checks = received.map((b) => b.check);
    expect(checks.map((c) => [c.previous, c.status])).toEqual([
      ['pass', 'fail'],
      ['fail', 'pass'],
    ]);
    expect(received[0]!.rca.headline).toBe('checkout: pass → fail — p99 is fail');
    expect(received[0]!.check.evidence).toEqual(['latency fail']);
    expect(received[0]!.investigation.source).toBe('check');
    const { body } = await getJson(`${svc.base}/api/checks`);
    expect(body.items[0].state).toMatchObject({ lastStatus: 'pass', notified: 'pass', paused: false });
    expect(body.items[0].history.filter((h: { notified: boolean }) => h.notified)).toHaveLength(2);
    // What one run cost (docs/checks.md#cost): two model calls, priced like any investigation.
    const run = (await getJson(`${svc.base}/api/investigations/${body.items[0].history[0].investigationId}`)).body;
    expect(run.usage.llmCalls).toBe(2);
    const price = (run.usage.promptTokens * 2.5 + run.usage.completionTokens * 10) / 1e6;
    expect(run.cost.amount).toBeCloseTo(price, 8);
    console.log(`check run: ${JSON.stringify(run.usage)}, ${run.cost.amount} USD`);
  });

  it('a run that ends without a verdict is error, recorded on the investigation', async () => {
    const entry = await runCheck(null);
    expect(entry.status).toBe('error');
    const { body } = await getJson(`${svc.base}/api/investigations/${entry.investigationId}`);
    expect(body.check).toMatchObject({ name: 'checkout', status: 'error', previous: 'pass' });
    // The model was asked once more for the verdict before its answer stood.
    const asked = llm.requests.filter((r) =>
      r.messages.some((m) => m.role === 'user' && /not reported the check's verdict/.test(m.content ?? '')),
    );
    expect(asked.length).toBeGreaterThan(0);
  });

  it('pause and resume through the API; an unknown check is a 404 naming the known ones', async () => {
    const paused = await fetch(`${svc.base}/api/checks/checkout/pause`, { method: 'POST' });
    expect(await paused.json()).toEqual({ check: 'checkout', paused: true });
    expect((await getJson(`${svc.base}/api/checks`)).body.items[0].state.paused).toBe(true);
    await fetch(`${svc.base}/api/checks/checkout/resume`, { method: 'POST' });
    expect((await getJson(`${svc.base}/api/checks`)).body.items[0].state.paused).toBe(false);
    const unknown = await fetch(`${svc.base}/api/checks/nope/run`, { method: 'POST' });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toContain('known: checkout');
  });

  it('lestrade checks list shows the strip and the last summary; pause and resume through the CLI', async () => {
    const list = await runCli(['checks', 'list', '--url', svc.base], {});
    expect(list.stderr).toBe('');
    const row = list.stdout.split('\n').find((l) => l.startsWith('checkout'))!;
    // Oldest first: pass, fail, fail, fail, pass, pass, pass, then the run without a verdict.
    expect(row).toContain('.FFF...E');
    expect(row).toContain('cron 0 0 1 1 *');
    const paused = await runCli(['checks', 'pause', 'checkout', '--url', svc.base], {});
    expect(paused.stdout).toBe('checkout: paused\n');
    expect((await getJson(`${svc.base}/api/checks`)).body.items[0].state.paused).toBe(true);
    await runCli(['checks', 'resume', 'checkout', '--url', svc.base], {});
    expect((await getJson(`${svc.base}/api/checks`)).body.items[0].state.paused).toBe(false);
    const unknown = await runCli(['checks', 'run', 'nope', '--url', svc.base], {});
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('no check named "nope"');
  }, 60_000);

  it('the dashboard Checks page shows the strip and the last evidence; Pause, Resume and Run now work (Chromium)', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${svc.base}/checks`);
      const card = page.locator('#check-checkout');
      // Oldest first: the eight runs so far, the last one without a verdict.
      const strip = await card.locator('.strip li').evaluateAll((lis) => lis.map((li) => li.className));
      expect(strip.map((c) => c.split(' ')[0])).toEqual([
        'run-pass',
        'run-fail',
        'run-fail',
        'run-fail',
        'run-pass',
        'run-pass',
        'run-pass',
        'run-error',
      ]);
      expect(strip.filter((c) => c.includes('notified'))).toHaveLength(2);
      await card.getByRole('button', { name: 'Pause' }).click();
      await waitFor('paused', async () => (await getJson(`${svc.base}/api/checks`)).body.items[0].state.paused);
      await page.reload();
      await expect(card.locator('.badge.paused').textContent()).resolves.toBe('paused');
      await card.getByRole('button', { name: 'Resume' }).click();
      await waitFor('resumed', async () => !(await getJson(`${svc.base}/api/checks`)).body.items[0].state.paused);
      verdicts.push('warn');
      await page.reload();
      await card.getByRole('button', { name: 'Run now' }).click();
      await waitFor('the run on the page', async () => {
        await page.reload();
        return (await card.locator('.strip li').count()) === 9;
      });
      expect(await card.locator('.summary').textContent()).toBe('p99 is warn');
      expect(await card.locator('.evidence li').allTextContents()).toEqual(['latency warn']);
      expect(await card.locator('h2 .badge').first().textContent()).toBe('warn');
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('a signed deploy notification runs the matching afterDeploy check once, reported against the deploy', async () => {
    verdicts.push('fail');
    const body = JSON.stringify({ id: 'argo-77', service: 'checkout', namespace: 'shop', version: 'v2.41.0' });
    const post = () =>
      fetch(`${svc.base}/webhooks/deploy`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-lestrade-signature-256': signBody(body, 'deploy-secret') },
        body,
      });
    expect((await post()).status).toBe(202);
    // Told again (a sender's retry): still one run.
    await post();
    const run = await waitFor('the deploy run', async () => {
      const { body: checks } = await getJson(`${svc.base}/api/checks`);
      return checks.items.find((c: { name: string }) => c.name === 'checkout-rollout').history[0];
    });
    expect(run).toMatchObject({ status: 'fail', deploy: 'checkout v2.41.0' });
    const inv = (await getJson(`${svc.base}/api/investigations/${run.investigationId}`)).body;
    expect(inv.check.deploy).toMatchObject({ id: 'webhook:argo-77', service: 'checkout', version: 'v2.41.0' });
    // The prompt named the deploy.
    const first = llm.requests.find(
      (r) => r.messages.length === 2 && /checkout-rollout/.test(r.messages[1]?.content ?? ''),
    );
    expect(first?.messages[1]?.content).toContain('This run follows a deploy: checkout v2.41.0 in namespace shop');
    await new Promise((r) => setTimeout(r, 1000));
    const { body: after } = await getJson(`${svc.base}/api/checks`);
    expect(after.items.find((c: { name: string }) => c.name === 'checkout-rollout').history).toHaveLength(1);
  }, 60_000);
});
