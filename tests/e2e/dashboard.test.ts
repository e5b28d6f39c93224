import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, VIEWPORTS } from '../helpers/browser.js';
import { deliverOne, runtimeConfig } from '../helpers/runtime.js';
import { startScriptedLlm, toolResults, type Script } from '../helpers/scripted-llm.js';
import { serviceHarness } from '../helpers/service-harness.js';
import { startTestService, waitFor } from '../helpers/service.js';
import { keys } from '../../src/redis/keys.js';

const h = serviceHarness();
const TOKEN = 'dash-token-0123456789';
const IMAGES = join(import.meta.dirname, '..', '..', 'docs', 'images');

/** An RCA a prompt-injected model might write: each line tries to run or fetch something. */
const HOSTILE_RCA = [
  '## Root cause',
  'The **database** ran out of connections.',
  '',
  '<script>window.__pwned = "script"; alert("script")</script>',
  '',
  "<img src=x onerror=\"window.__pwned = 'img'; alert('img')\">",
  '',
  'See [the runbook](javascript:alert(1)) and [the graph](https://grafana.example/d/db).',
  '',
  '| check | result |',
  '|---|---|',
  '| connections | 100/100 |',
].join('\n');

const lastUser = (req: { messages: Array<{ role: string; content?: string | null }> }) =>
  req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';

/** A read-only call and a side-effecting one (paused for approval), then the hostile RCA; follow-ups answered plainly. */
const script: Script = (req) => {
  const q = lastUser(req);
  if (q.includes('Follow-up question'))
    return { content: `Follow-up answer: **the pool size** (${q.split('\n').at(-1)})` };
  if (toolResults(req).length === 0) {
    return {
      toolCalls: [
        { id: 'c-say', name: 'say', arguments: { word: 'connections=100' } },
        { id: 'c-restart', name: 'restart', arguments: { name: 'api' } },
      ],
    };
  }
  return { content: HOSTILE_RCA };
};

/** Waits for a status through the API, with the token when one is set. */
function statusIs(base: string, id: string, statuses: string[], timeoutMs = 20_000): Promise<unknown> {
  return waitFor(
    `investigation ${id} to be ${statuses.join(' or ')}`,
    async () => {
      const res = await fetch(`${base}/api/investigations/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const inv = (await res.json()) as { status: string };
      return statuses.includes(inv.status) && inv;
    },
    timeoutMs,
  );
}

let browser: Browser;
let context: BrowserContext | undefined;

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(IMAGES, { recursive: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  await context?.close();
  context = undefined;
});

async function serve(env: Record<string, string> = { LESTRADE_API_TOKEN: TOKEN }) {
  const rt = runtimeConfig();
  h.llm = await startScriptedLlm(script);
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: h.llm.baseUrl,
    LESTRADE_CONFIG: rt.config,
    ...env,
  });
  return { base: h.svc.base, rt };
}

/** A fresh browser profile at a width, failing the test on any dialog (alert() must never run). */
async function open(width: keyof typeof VIEWPORTS = 'laptop'): Promise<{ page: Page; dialogs: string[] }> {
  context = await browser.newContext({ viewport: VIEWPORTS[width] });
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { page, dialogs };
}

async function signIn(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/`);
  await page.waitForURL(`${base}/login`);
  await page.fill('#token', TOKEN);
  await page.click('button[type=submit]');
  await page.waitForURL(`${base}/`);
}

describe('dashboard in a real browser', { timeout: 90_000 }, () => {
  it('shows nothing before signing in, exchanges the token for an HttpOnly SameSite=Strict cookie, and never keeps the token', async () => {
    const { base } = await serve();
    const id = await deliverOne(base, 'aaaa000000000001');
    const { page } = await open();
    await page.goto(`${base}/investigations/${id}`);
    expect(page.url()).toBe(`${base}/login`);
    expect(await page.content()).not.toContain(id);
    expect((await fetch(`${base}/api/investigations`)).status).toBe(401);
    expect((await fetch(`${base}/ui/events`)).status).toBe(401);

    await page.fill('#token', 'wrong-token');
    await page.click('button[type=submit]');
    await expect.poll(() => page.textContent('.error')).toContain('LESTRADE_API_TOKEN');
    expect(page.url()).toBe(`${base}/login`);

    await page.fill('#token', TOKEN);
    await page.click('button[type=submit]');
    await page.waitForURL(`${base}/`);
    const [cookie] = await context!.cookies();
    expect(cookie).toMatchObject({ name: 'lestrade_session', httpOnly: true, sameSite: 'Strict' });
    expect(cookie!.value).not.toContain(TOKEN);
    expect(page.url()).not.toContain(TOKEN);
    expect(JSON.stringify(await h.admin.keys('*'))).not.toContain(cookie!.value);

    // Signed out, the same cookie opens nothing.
    await page.click('form.logout button');
    await page.waitForURL(`${base}/login`);
    const stale = await fetch(`${base}/api/investigations`, {
      headers: { cookie: `lestrade_session=${cookie!.value}` },
    });
    expect(stale.status).toBe(401);
  });

  it('lists investigations newest first, adds a delivered one live without a reload, and opens its page', async () => {
    const { base } = await serve();
    const first = await deliverOne(base, 'aaaa000000000002');
    await statusIs(base, first, ['awaiting_approval'], 20_000);
    const { page } = await open();
    await signIn(page, base);
    await expect.poll(() => page.locator('tr[data-id]').count()).toBe(1);
    await page.waitForFunction(() => document.getElementById('live-state')?.textContent === 'live');
    await page.evaluate(() => {
      (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
    });

    const second = await deliverOne(base, 'aaaa000000000003');
    await page.waitForSelector(`tr[data-id="${second}"]`, { timeout: 15_000 });
    expect(await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument)).toBe(true);
    expect(await page.locator('tr[data-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')))).toEqual(
      [second, first],
    );
    await expect
      .poll(async () => Number(await page.textContent('[data-count="awaiting_approval"]')), { timeout: 15_000 })
      .toBe(2);
    await page.screenshot({ path: join(IMAGES, 'dashboard-list-laptop.png'), fullPage: true });

    await page.selectOption('select[name=status]', 'awaiting_approval');
    await page.fill('input[name=q]', 'no-such-text-anywhere');
    await page.click('form.filters button');
    await expect.poll(() => page.locator('tr[data-id]').count()).toBe(0);
    await page.goto(`${base}/`);

    await page.click(`tr[data-id="${first}"] a`);
    await page.waitForURL(`${base}/investigations/${first}`);
    expect(await page.textContent('h1')).toBeTruthy();
    expect(await page.locator('.timeline li').count()).toBe(1);

    await page.setViewportSize(VIEWPORTS.phone);
    await page.goto(`${base}/`);
    await page.screenshot({ path: join(IMAGES, 'dashboard-list-phone.png'), fullPage: true });
  });

  it('approves a pending call with a reason, renders the hostile RCA inert, shows tool output, and answers a follow-up', async () => {
    const { base, rt } = await serve();
    const id = await deliverOne(base, 'aaaa000000000004');
    await statusIs(base, id, ['awaiting_approval'], 20_000);
    const { page, dialogs } = await open();
    await signIn(page, base);
    await page.goto(`${base}/investigations/${id}`);
    await page.waitForSelector('form.approval');
    await page.screenshot({ path: join(IMAGES, 'dashboard-approval-laptop.png'), fullPage: true });
    await page.fill('form.approval textarea[name=feedback]', 'fine, it is stateless');
    await page.click('form.approval button[value=approve]');

    // The page updates itself once the run resumes and completes.
    await page.waitForSelector('.rca', { timeout: 20_000 });
    await expect.poll(() => page.getAttribute('[data-status]', 'data-status'), { timeout: 20_000 }).toBe('completed');
    const { existsSync } = await import('node:fs');
    expect(existsSync(rt.marker('api'))).toBe(true);

    // The RCA is shown, and nothing in it runs or fetches.
    expect(await page.textContent('.rca')).toContain('ran out of connections');
    expect(await page.locator('.rca script, .rca img, .rca [onerror]').count()).toBe(0);
    expect(await page.locator('script').evaluateAll((s) => s.map((e) => e.getAttribute('src')))).toEqual([
      '/ui/assets/dashboard.js',
    ]);
    const hrefs = await page.locator('.rca a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    expect(hrefs.some((href) => /^\s*javascript:/i.test(href ?? ''))).toBe(false);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);

    // Each tool call's output is kept and shown on demand.
    await page.click('.timeline li:first-child summary');
    expect(await page.textContent('.timeline li:first-child .output')).toContain('connections=100');
    await page.screenshot({ path: join(IMAGES, 'dashboard-investigation-laptop.png'), fullPage: true });

    await page.fill('#question', 'Why did the pool run out?');
    await page.click('form.ask button');
    await page.waitForSelector('.qa .answer', { timeout: 20_000 });
    expect(await page.textContent('.qa .answer')).toContain('Follow-up answer: the pool size');
    expect(dialogs).toEqual([]);
    await page.setViewportSize(VIEWPORTS.phone);
    await page.screenshot({ path: join(IMAGES, 'dashboard-investigation-phone.png'), fullPage: true });
  });

  it("shows the model's plan when the record has one, and re-runs a finished investigation from its page", async () => {
    const { base } = await serve();
    const id = await deliverOne(base, 'aaaa000000000006');
    await statusIs(base, id, ['awaiting_approval'], 20_000);
    const { page } = await open();
    await signIn(page, base);
    await page.goto(`${base}/investigations/${id}`);
    await page.waitForSelector('form.approval');
    // No plan on the record: no panel at all; an unfinished run: no Re-run button.
    expect(await page.locator('#plan').count()).toBe(0);
    expect(await page.locator('form[data-action=rerun]').count()).toBe(0);
    await page.click('form.approval button[value=approve]');
    await expect.poll(() => page.getAttribute('[data-status]', 'data-status'), { timeout: 20_000 }).toBe('completed');

    // A plan as the TodoWrite tool keeps it (seeded here: the tool is another change's).
    const plan = [
      { id: '1', content: 'Check the pool size', status: 'completed' },
      { id: '2', content: 'Compare with <b>yesterday</b>', status: 'in_progress' },
      { id: '3', content: 'Write the RCA', status: 'pending' },
    ];
    await h.admin.hset(keys.investigation(id), 'plan', JSON.stringify(plan));
    await page.reload();
    const items = page.locator('#plan li.plan-item');
    expect(
      await items.evaluateAll((li) => li.map((e) => [e.getAttribute('data-status'), e.textContent?.trim()])),
    ).toEqual([
      ['completed', 'completed Check the pool size'],
      ['in_progress', 'in progress Compare with <b>yesterday</b>'],
      ['pending', 'pending Write the RCA'],
    ]);
    expect(await page.textContent('#plan h2')).toContain('1/3 done');
    expect(await page.locator('#plan b').count()).toBe(0);

    // The runbooks it was offered and read, as the record keeps them; the titles are text, never markup.
    expect(await page.locator('#runbooks').count()).toBe(0);
    const runbooks = [
      { id: 'db/pool', title: 'DB <i>pool</i> exhausted', how: 'matched' },
      { id: 'db/pool', title: 'DB <i>pool</i> exhausted', how: 'fetched' },
      { id: 'https://runbooks.example/x', title: 'https://runbooks.example/x', how: 'fetched' },
    ];
    await h.admin.hset(keys.investigation(id), 'runbooks', JSON.stringify(runbooks));
    await page.reload();
    expect(
      await page
        .locator('#runbooks li.runbook')
        .evaluateAll((li) => li.map((e) => [e.getAttribute('data-how'), e.textContent?.trim()])),
    ).toEqual([
      ['matched', 'offered DB <i>pool</i> exhausted db/pool'],
      ['fetched', 'read DB <i>pool</i> exhausted db/pool'],
      ['fetched', 'read https://runbooks.example/x'],
    ]);
    expect(await page.locator('#runbooks i, #runbooks a').count()).toBe(0);

    // Re-run: the page follows the new run live (it pauses for the same approval), without the old plan.
    const calls = h.llm!.requests.length;
    await page.click('form[data-action=rerun] button');
    await page.waitForSelector('form.approval', { timeout: 20_000 });
    expect(await page.locator('#plan').count()).toBe(0);
    const inv = (await (
      await fetch(`${base}/api/investigations/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } })
    ).json()) as { run: number; runId: string; rca: string | null };
    expect(inv).toMatchObject({ run: 2, runId: `${id}-rerun-2`, rca: null });
    expect(h.llm!.requests.length).toBe(calls + 1);
  });

  it('refuses an action without the CSRF token or from another origin, even with a valid session', async () => {
    const { base } = await serve();
    const id = await deliverOne(base, 'aaaa000000000005');
    await statusIs(base, id, ['awaiting_approval'], 20_000);
    const { page } = await open();
    await signIn(page, base);
    const csrf = await page.getAttribute('meta[name=csrf-token]', 'content');
    const [cookie] = await context!.cookies();
    const post = (headers: Record<string, string>) =>
      fetch(`${base}/api/investigations/${id}/cancel`, {
        method: 'POST',
        headers: { cookie: `lestrade_session=${cookie!.value}`, 'content-type': 'application/json', ...headers },
        body: '{}',
      });
    expect((await post({ origin: base })).status).toBe(401);
    expect((await post({ origin: 'http://evil.example', 'x-csrf-token': csrf! })).status).toBe(401);
    expect((await post({ 'x-csrf-token': csrf! })).status).toBe(401);
    expect((await h.admin.keys('*')).length).toBeGreaterThan(0);
    expect((await post({ origin: base, 'x-csrf-token': csrf! })).status).toBe(200);
  });

  it('is open without LESTRADE_API_TOKEN and says so; shows toolsets and the queue; sends a strict CSP', async () => {
    const { base } = await serve({});
    const { page } = await open();
    const res = await page.goto(`${base}/`);
    expect(page.url()).toBe(`${base}/`);
    expect(res!.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(res!.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(await page.textContent('.open-warning')).toContain('LESTRADE_API_TOKEN');

    await page.click('nav a[href="/toolsets"]');
    await page.waitForURL(`${base}/toolsets`);
    // The runtime config's YAML toolset is enabled; a built-in without its settings says why not.
    const say = page.locator('table.toolsets tr', { has: page.locator('code', { hasText: /^say$/ }) });
    expect(await say.locator('.badge').textContent()).toBe('enabled');
    expect(await say.textContent()).toContain('restart');
    expect(await page.locator('table.toolsets .state-disabled, table.toolsets .state-failed').count()).toBeGreaterThan(
      0,
    );

    await page.click('nav a[href="/queue"]');
    await page.waitForURL(`${base}/queue`);
    expect(await page.textContent('[data-queue="waiting"]')).toBe('0');
    expect(await page.textContent('main')).toContain('Nothing is held back');
    // On loopback the start-up summary says it is open, to this machine only.
    expect(
      h.svc!.logs.some((l) =>
        JSON.stringify(l.open ?? []).includes('/api and the dashboard have no auth, reachable from this machine only'),
      ),
    ).toBe(true);
  });
});
