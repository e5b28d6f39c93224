import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, VIEWPORTS } from '../helpers/browser.js';
import { deliverOne, runtimeConfig } from '../helpers/runtime.js';
import { startScriptedLlm } from '../helpers/scripted-llm.js';
import { serviceHarness } from '../helpers/service-harness.js';
import { startTestService, waitFor } from '../helpers/service.js';
import { keys } from '../../src/redis/keys.js';

// The investigation page's Correct / Partly / Wrong buttons: a verdict lands once under the session's name,
// and what people typed is shown as text, never as markup.

const h = serviceHarness();
const TOKEN = 'dash-token-0123456789';
const IMAGES = join(import.meta.dirname, '..', '..', 'docs', 'images');
const HOSTILE = '<img src=x onerror="window.__pwned = 1; alert(1)"> the <b>DNS</b> cache';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

const api = async (base: string, path: string) =>
  (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json();

describe('rating an RCA on the dashboard', { timeout: 90_000 }, () => {
  it('records Correct, then Wrong with the actual root cause, once each, listed escaped under the token name', async () => {
    h.llm = await startScriptedLlm(() => ({ content: '## Root cause\nThe **database** ran out of connections.' }));
    h.svc = await startTestService(h.redis.url, {
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: h.llm.baseUrl,
      LESTRADE_CONFIG: runtimeConfig().config,
      LESTRADE_API_TOKENS: `carol:${TOKEN}`,
    });
    const base = h.svc.base;
    const id = await deliverOne(base);
    await waitFor('the RCA', async () => (await api(base, `/api/investigations/${id}`)).status === 'completed');

    const context = await browser.newContext({ viewport: VIEWPORTS.laptop });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${base}/`);
    await page.fill('#token', TOKEN);
    await page.click('button[type=submit]');
    await page.waitForURL(`${base}/`);
    await page.goto(`${base}/investigations/${id}`);
    expect(await page.textContent('#feedback')).toContain('Nobody has rated it yet.');

    await page.click('form.rate button[value=correct]');
    await page.waitForSelector('#feedback .verdict-correct');
    // The same click again: nothing changes, and the page says so.
    await page.click('form.rate button[value=correct]');
    await page.waitForFunction(() => document.querySelector('form.rate .result')?.textContent?.startsWith('Unchanged'));
    expect((await api(base, `/api/investigations/${id}`)).feedback).toEqual([
      { verdict: 'correct', by: { via: 'dashboard', user: 'carol' }, at: expect.any(String) },
    ]);

    await page.fill('form.rate textarea[name=rootCause]', HOSTILE);
    await page.click('form.rate button[value=wrong]');
    await page.waitForSelector('#feedback .verdict-wrong');
    expect(await page.textContent('#feedback .root-cause')).toContain(HOSTILE);
    expect(await page.locator('#feedback img').count()).toBe(0);
    expect(await page.locator('#feedback .verdict').count()).toBe(1);
    expect(await page.textContent('#feedback .who')).toBe('carol');
    await page.screenshot({ path: join(IMAGES, 'dashboard-feedback-laptop.png'), fullPage: true });
    expect(dialogs).toEqual([]);
    expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();

    const stored = await h.admin.hgetall(keys.feedback(id));
    expect(Object.keys(stored)).toEqual(['dashboard:carol']);
    expect(JSON.parse(stored['dashboard:carol']!)).toMatchObject({ verdict: 'wrong', rootCause: HOSTILE });
    await context.close();
  });
});
