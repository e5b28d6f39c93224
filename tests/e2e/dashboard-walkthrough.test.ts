import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAlertmanager, type TestAlertmanager } from '../helpers/alertmanager.js';
import { launchChromium, VIEWPORTS } from '../helpers/browser.js';
import { freePort } from '../helpers/free-port.js';
import { queryOne, startPrometheus, type TestPrometheus } from '../helpers/prometheus.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startScriptedLlm, toolResults, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor, type TestService } from '../helpers/service.js';
import { stopAll } from '../helpers/stop-all.js';
import { BUILTIN_YAML_DIR } from '../../toolsets/index.js';

/**
 * The README's walkthrough, ending where a new user looks: the alert of step 3 fired into a real
 * Alertmanager, delivered to the running service, investigated with the real Prometheus toolset (the
 * model scripted), and read on the investigation page in Chromium. Saves the README's screenshot
 * (docs/images/readme-investigation.png) and the toolsets page's.
 */
const IMAGES = join(import.meta.dirname, '..', '..', 'docs', 'images');
const TOKEN = 'walkthrough-token';

const RCA = [
  '## Alert explanation',
  'TargetDown (critical) fired for `job="node"`: Prometheus has no healthy target for the node exporter.',
  '',
  '## Key findings',
  '- `up{job="node"}` returns **no series**: no node exporter target is configured or discovered.',
  '- `up` shows only the `prometheus` job, which is up (`1`).',
  '',
  '## Root cause',
  'The node exporter is not scraped at all: its scrape job is missing from the Prometheus configuration, so',
  'the `job="node"` series the alert expects do not exist.',
  '',
  '## Next steps',
  '1. Add a `node` scrape job pointing at the node exporter (port 9100) and reload Prometheus.',
  '2. Check the exporter answers: `curl http://<node>:9100/metrics`.',
].join('\n');

let redis: TestRedis;
let prom: TestPrometheus;
let am: TestAlertmanager;
let llm: ScriptedLlm;
let svc: TestService;
let browser: Browser;
let toolsetsDir: string;

beforeAll(async () => {
  redis = await startRedis();
  prom = await startPrometheus();
  // Scraped itself once, so `up` has a series to show.
  await waitFor('Prometheus to scrape itself', async () => (await queryOne(prom, 'up')) === 1, 30_000);
  llm = await startScriptedLlm((req) => {
    if (toolResults(req).length === 0) {
      return {
        toolCalls: [
          { id: 'q-node', name: 'prometheus_query', arguments: { query: 'up{job="node"}' } },
          { id: 'q-up', name: 'prometheus_query', arguments: { query: 'up' } },
        ],
      };
    }
    return { content: RCA };
  });
  // A folder of the operators' own YAML toolsets, as toolsets.dirs names it.
  toolsetsDir = mkdtempSync(join(tmpdir(), 'lestrade-walkthrough-'));
  writeFileSync(
    join(toolsetsDir, 'deploys.yaml'),
    'name: deploys\ndescription: recent deploys\ntools: [ { name: deploys, description: d, command: [echo, none] } ]\n',
  );
  // One that fails to load: its reason quotes the file.
  writeFileSync(join(toolsetsDir, 'broken.yaml'), 'name: broken\ndescription: d\n');
  const config = join(toolsetsDir, '..', `${toolsetsDir.split('/').at(-1)}.yaml`);
  writeFileSync(config, `toolsets: { dirs: [${JSON.stringify(toolsetsDir)}] }\n`);
  svc = await startTestService(redis.url, {
    OPENAI_API_KEY: 'sk-walkthrough',
    OPENAI_BASE_URL: llm.baseUrl,
    PROMETHEUS_URL: prom.url,
    ALERTMANAGER_WEBHOOK_TOKEN: TOKEN,
    LESTRADE_CONFIG: config,
  });
  am = await startAlertmanager({
    port: await freePort(),
    webhookUrl: `${svc.base}/webhooks/alertmanager`,
    token: TOKEN,
    groupWait: '1s',
  });
  browser = await launchChromium();
  mkdirSync(IMAGES, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stopAll(am, svc, prom, llm, redis);
  rmSync(toolsetsDir, { recursive: true, force: true });
  rmSync(`${toolsetsDir}.yaml`, { force: true });
});

describe('the walkthrough ends on the investigation page', { timeout: 90_000 }, () => {
  it('shows the alert on top, times with their zone, each tool call with its query, and a favicon', async () => {
    // Step 3 of the README: the alert, as Prometheus would send it to Alertmanager.
    const fired = await fetch(`${am.url}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        {
          labels: { alertname: 'TargetDown', severity: 'critical', job: 'node' },
          annotations: { summary: 'The node exporter target is down' },
        },
      ]),
    });
    expect(fired.status).toBe(200);
    const id = await waitFor(
      'a completed investigation',
      async () => {
        const items = (await getJson(`${svc.base}/api/investigations`)).body.items as Array<{
          id: string;
          status: string;
        }>;
        return items[0]?.status === 'completed' && items[0].id;
      },
      60_000,
    );

    const context = await browser.newContext({ viewport: VIEWPORTS.laptop, timezoneId: 'Europe/Paris' });
    const page = await context.newPage();
    await page.goto(`${svc.base}/investigations/${id}`);

    // The issue, with its labels and annotations, comes before the RCA.
    const order = await page.evaluate(() => {
      const issue = document.querySelector('#issue');
      const rca = document.querySelector('.rca');
      return issue && rca ? issue.compareDocumentPosition(rca) & Node.DOCUMENT_POSITION_FOLLOWING : 0;
    });
    expect(order).toBeGreaterThan(0);
    const labels = await page.locator('#issue .labels code').allTextContents();
    expect(labels).toEqual(expect.arrayContaining(['alertname=TargetDown', 'job=node', 'severity=critical']));
    expect(await page.textContent('#issue .annotations')).toContain('The node exporter target is down');

    // Times in the browser's zone, the zone named; the UTC text the server wrote stays as the tooltip.
    const created = page.locator('.detail-head time').first();
    expect(await created.textContent()).toMatch(/(CET|CEST|GMT\+1|GMT\+2)$/);
    expect(await created.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);

    // Each tool call says what it asked before it is opened.
    const lines = await page.locator('.timeline > li > details:not([open]) > summary').allTextContents();
    expect(lines.map((l) => l.replace(/\s+/g, ' ').trim())).toEqual([
      expect.stringMatching(/^prometheus_query query=up\{job="node"\} no data \d+ ms$/),
      expect.stringMatching(/^prometheus_query query=up success \d+ ms$/),
    ]);

    // A favicon, from this origin.
    expect(await page.getAttribute('link[rel=icon]', 'href')).toBe('/ui/assets/favicon.svg');
    const icon = await fetch(`${svc.base}/ui/assets/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    const ico = await fetch(`${svc.base}/favicon.ico`, { redirect: 'manual' });
    expect(ico.headers.get('location')).toBe('/ui/assets/favicon.svg');

    // The README's picture: from the header down to the tool calls.
    const bottom = await page.evaluate(() => document.querySelector('.timeline')!.getBoundingClientRect().bottom);
    await page.screenshot({
      path: join(IMAGES, 'readme-investigation.png'),
      fullPage: true,
      clip: { x: 0, y: 0, width: VIEWPORTS.laptop.width, height: Math.ceil(bottom) + 24 },
    });
    await context.close();
  });

  it('the toolsets page names files relative to their folder, and shows no path of the host', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.laptop });
    const page = await context.newPage();
    await page.goto(`${svc.base}/toolsets`);
    const text = (await page.textContent('main'))!;
    expect(text).toContain('kubernetes.yaml (shipped)');
    expect(text).toContain('deploys.yaml (toolsets.dirs)');
    expect(text).not.toContain(BUILTIN_YAML_DIR);
    expect(text).not.toContain(toolsetsDir);
    expect(text).not.toMatch(/\/(tmp|root|home|usr|opt|work)\//);
    expect(text).toContain('broken.yaml (toolsets.dirs)');
    expect(text).toMatch(/broken\.yaml: tools:/);
    // /readyz says the same, without the path either.
    const ready = JSON.stringify((await getJson(`${svc.base}/readyz`)).body);
    expect(ready).toMatch(/"broken":"failed: broken\.yaml: tools:/);
    expect(ready).not.toContain(toolsetsDir);
    // kubectl finding no cluster is said as that, not as a refused port.
    const kubernetes = (await page.textContent('tr:has(code:text-is("kubernetes"))'))!;
    if (kubernetes.includes('disabled') && kubernetes.includes('localhost:8080'))
      expect(kubernetes).toContain('no kubeconfig or in-cluster credentials found');
    await page.screenshot({ path: join(IMAGES, 'dashboard-toolsets-laptop.png'), fullPage: true });
    await context.close();
  });
});
