import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Verdict } from '../../../../src/records/feedback.js';
import { launchChromium, VIEWPORTS } from '../../../helpers/browser.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { startTestService, type TestService } from '../../../helpers/service.js';
import { DAY, giveVerdict, HOUR, qualityStore, seedInvestigation } from '../../../helpers/quality-records.js';

// The Quality page in headless Chromium: the chart, the figures, the worst alerts (escaped), under the CSP.
const IMAGES = join(import.meta.dirname, '..', '..', '..', '..', 'docs', 'images');
const HOSTILE = `<img src=x onerror="window.__pwned='img'"><script>window.__pwned='script'</script>`;
const ALERTS = ['KubePodCrashLooping', 'DiskWillFillIn4h', 'HighErrorRate', 'CertificateExpiry', HOSTILE];
/** Days back from today that have answers (of the last 30), and how many rated answers each. */
const ACTIVE = [29, 27, 26, 24, 21, 20, 19, 16, 14, 13, 12, 9, 8, 7, 5, 4, 2, 1, 0];
const UNRATED_ONLY = 23;

let redis: TestRedis;
let client: Redis;
let svc: TestService;
let browser: Browser;

/** A deterministic spread: answers improve over the month, HOSTILE is mostly wrong. */
function verdictFor(daysBack: number, i: number, alert: string): Verdict | null {
  if (alert === HOSTILE) return i % 3 === 0 ? 'partly' : 'wrong';
  const r = (daysBack * 7 + i * 3) % 10;
  if (r < 2) return null;
  if (r < 4 + Math.floor((29 - daysBack) / 8)) return 'correct';
  if (r < 8) return 'correct';
  return r < 9 ? 'partly' : 'wrong';
}

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
  svc = await startTestService(redis.url, {}, { workers: false });
  browser = await launchChromium();
  const store = qualityStore(client);
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  for (const back of [...ACTIVE, UNRATED_ONLY]) {
    for (let i = 0; i < 2 + (back % 3); i++) {
      const alert = ALERTS[(back + i) % ALERTS.length]!;
      // Today's fall before now, even just after midnight (a fixed 00:10 was in the future until 00:10 UTC).
      const into =
        back === 0 ? Math.min((i + 1) * 10 * 60_000, ((Date.now() - today) * (i + 1)) / 4) : (i + 1) * 10 * 60_000;
      const createdAt = today - back * DAY + Math.floor(into);
      const id = await seedInvestigation(store, client, {
        // The same alert fires again on later days: some came back within 7 days of resolving.
        fingerprint: `fp-${alert}-${i % 2}`,
        alertname: alert,
        createdAt,
        resolvedAt: createdAt + (i + 1) * HOUR,
        cost: { amount: 0.04 + i * 0.01, currency: 'USD', model: 'gpt-4o' },
      });
      // Every active day has at least one rated answer (its first); UNRATED_ONLY has none.
      const verdict = back === UNRATED_ONLY ? null : (verdictFor(back, i, alert) ?? (i === 0 ? 'correct' : null));
      if (verdict) await giveVerdict(client, id, verdict, `user${i}`, createdAt + HOUR);
    }
  }
  mkdirSync(IMAGES, { recursive: true });
}, 90_000);
afterAll(async () => {
  await browser?.close();
  client?.disconnect();
  await svc?.close();
  await redis?.stop();
});

describe('the Quality page', { timeout: 60_000 }, () => {
  it('draws accuracy and rated share per day, lists the worst alerts escaped, and breaks no CSP rule', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.laptop });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    await page.goto(`${svc.base}/`);
    await page.click('nav a[href="/quality"]');
    await page.waitForURL(`${svc.base}/quality`);
    expect(await page.locator('nav a[aria-current=page]').textContent()).toBe('Quality');
    // A point per day with a rated answer (accuracy) and per day with an answer (rated share).
    expect(await page.locator('svg.quality-chart circle.point-accuracy').count()).toBe(ACTIVE.length);
    expect(await page.locator('svg.quality-chart circle.point-rated').count()).toBe(ACTIVE.length + 1);
    expect(await page.locator('svg.quality-chart polyline.series-accuracy').count()).toBeGreaterThan(1);
    // Styled by the stylesheet, not inline: the line has its colour.
    const stroke = await page
      .locator('polyline.series-accuracy')
      .first()
      .evaluate((e) => getComputedStyle(e).stroke);
    expect(stroke).toBe('rgb(36, 86, 199)');
    const rows = page.locator('table.worst-alerts tbody tr');
    expect(await rows.first().locator('td').first().textContent()).toBe(HOSTILE);
    expect(await page.evaluate(() => (window as { __pwned?: string }).__pwned)).toBeUndefined();
    expect(await page.locator('table.worst-alerts img, main script').count()).toBe(0);
    expect(await page.locator('[data-figure=rated]').textContent()).toMatch(/^\d+ of \d+$/);
    await page.screenshot({ path: join(IMAGES, 'dashboard-quality-laptop.png'), fullPage: true });
    await page.goto(`${svc.base}/quality?days=7`);
    expect(await page.locator('svg.quality-chart circle.point-rated').count()).toBe(ACTIVE.filter((d) => d < 7).length);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('answers a bad window with 400 and what to give', async () => {
    const res = await fetch(`${svc.base}/quality?days=1000`);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('days: &quot;1000&quot; is not a whole number of days from 1 to 365');
  });
});
