import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { slackPage, teamsPage, type RenderedMessage } from '../../helpers/block-kit-html.js';
import { launchChromium } from '../../helpers/browser.js';
import { startSlackDouble, type SlackDouble, type SlackMessageRecord } from '../../helpers/doubles/slack-double.js';
import { amDelivery, finalWriteBack, postAlertmanager } from '../../helpers/destinations-harness.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { runtimeConfig, statusIs } from '../../helpers/runtime.js';
import { startScriptedLlm, toolResults, type ChatRequest, type Script } from '../../helpers/scripted-llm.js';
import { serviceHarness } from '../../helpers/service-harness.js';
import { startTestService, waitFor } from '../../helpers/service.js';
import {
  buttonsOf,
  clickPayload,
  postInteraction,
  SIGNING_SECRET,
  submitPayload,
} from '../../helpers/slack-interactivity.js';

/**
 * The docs' pictures of Slack and Teams, from a real run: an alert through serve to the Slack double and a Teams
 * receiver; the Block Kit and the Adaptive Card exactly as Lestrade sent them are rendered to HTML by
 * tests/helpers/block-kit-html.ts and shot in Chromium (as the dashboard's pictures are, on every run) →
 * docs/images/slack-approval.png, slack-rca.png, slack-thread.png, teams-card.png.
 */
const h = serviceHarness();
const IMAGES = join(import.meta.dirname, '..', '..', '..', 'docs', 'images');
const TOKEN = 'xoxb-test-token';
const CHANNEL = 'C0ALERTS01';
const ALICE = { id: 'U0ALICE01', name: 'alice' };
const CAPTION =
  "Rendered by the test suite from the Block Kit JSON Lestrade sent (our HTML rendering in Chromium, not Slack's client)";
const TEAMS_CAPTION =
  'Rendered by the test suite from the Adaptive Card Lestrade sent (our HTML rendering in Chromium, not the Teams client)';

const RCA = [
  '## Root cause',
  'The `api` pods in `prod` were OOM-killed: the connection pool grew to 400 connections after the 14:02 deploy, ' +
    'each holding a 1 MiB buffer, past the 512Mi limit. <!channel> @here (neutralised: the model cannot ping anyone.)',
  '',
  '## Evidence',
  '- `container_memory_working_set_bytes` rose from 210Mi to 508Mi in 6 minutes ([graph](http://prometheus.example:9090/graph))',
  '- 3 restarts with reason `OOMKilled` since 14:05',
  '- the deploy raised `POOL_MAX` from 50 to 400 (see [exfil](https://evil.example/x): not a host anyone named, so not a link)',
  '',
  '## Fix',
  '1. Roll back `POOL_MAX` to 50, or raise the limit to 1Gi',
  '2. Restart done (approved): `kubectl rollout restart deploy/api`',
].join('\n');

const ANSWER =
  'Yes: with `POOL_MAX=50` the pool peaked at **~160Mi** before the deploy. ' +
  'Raising the limit alone would hide a leak: keep `POOL_MAX` at 50 until the buffer size is fixed.';

const lastUser = (req: ChatRequest) => String(req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');

const script: Script = (req) => {
  if (lastUser(req).includes('Follow-up question')) return { content: ANSWER };
  if (toolResults(req).length === 0)
    return { toolCalls: [{ id: 'c-restart', name: 'restart', arguments: { name: 'api' } }] };
  return { content: RCA };
};

let browser: Browser;
let slack: SlackDouble;
let teams: Receiver;

beforeAll(async () => {
  browser = await launchChromium();
  mkdirSync(IMAGES, { recursive: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
});
beforeEach(async () => {
  slack = await startSlackDouble({ token: TOKEN });
  slack.state.addChannel(CHANNEL, 'alerts');
  teams = await startReceiver();
});
afterEach(async () => {
  expect(slack.violations).toEqual([]);
  await slack.close();
  await teams.close();
});

/** What a message looks like now: its blocks copied (the double edits them in place later). */
const snapshot = (m: SlackMessageRecord, note?: string): RenderedMessage => ({
  blocks: JSON.parse(JSON.stringify(m.blocks)) as unknown[],
  ...(note ? { note } : {}),
});

/** Renders the page and shoots it; answers the page's text and its links, for the checks. */
async function shoot(html: string, file: string): Promise<{ text: string; hrefs: string[] }> {
  const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
  try {
    await page.setContent(html);
    await page.screenshot({ path: join(IMAGES, file), fullPage: true });
    const hrefs = await page.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
    return { text: await page.innerText('body'), hrefs };
  } finally {
    await page.close();
  }
}

async function serve() {
  const rt = runtimeConfig(
    'destinations: { slack: { approvers: [U0ALICE01] } }\nwriteBack: { backoffMs: 200, attempts: 8 }\n',
  );
  h.llm = await startScriptedLlm(script);
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: h.llm.baseUrl,
    LESTRADE_MODEL: 'scripted',
    LOG_LEVEL: 'warn',
    LESTRADE_CONFIG: rt.config,
    LESTRADE_PUBLIC_URL: 'https://lestrade.example',
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_API_URL: slack.apiUrl,
    SLACK_CHANNEL: CHANNEL,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    TEAMS_WEBHOOK_URL: teams.url,
  });
  return h.svc;
}

describe('screenshots of what the destinations sent', { timeout: 240_000 }, () => {
  it('Slack: approval waiting, the RCA under its parent, the thread with a follow-up; the Teams card', async () => {
    const svc = await serve();
    const out = await postAlertmanager(
      svc,
      amDelivery([{ name: 'KubePodOOMKilled', fp: 21, labels: { pod: 'api-7d9f-x2k4q' } }], 'KubePodOOMKilled'),
    );
    const id = out.queued[0] as string;
    await statusIs(svc.base, id, ['awaiting_approval']);
    const waiting = await waitFor('the awaiting-approval reply', async () =>
      slack.state.all().find((m) => m.metadata?.event_type === 'lestrade_rca' && buttonsOf(m).length === 2),
    );
    const parent = slack.state.parents(CHANNEL)[0]!;
    const approval = await shoot(
      slackPage(
        [{ title: 'Thread', subtitle: '#alerts', thread: true, messages: [snapshot(parent), snapshot(waiting)] }],
        CAPTION,
      ),
      'slack-approval.png',
    );
    expect(approval.text).toContain('Awaiting approval');
    expect(approval.text).toContain('Approve');

    const approve = buttonsOf(waiting).find((b) => b.action_id === 'lestrade_approve')!;
    expect((await postInteraction(svc.base, clickPayload(waiting, approve, ALICE))).status).toBe(200);
    await statusIs(svc.base, id, ['completed']);
    await waitFor('the reply to show the RCA', async () => JSON.stringify(waiting.blocks).includes('Root-cause'));
    await waitFor('the parent to show the headline', async () =>
      JSON.stringify(parent.blocks).includes('Latest analysis'),
    );
    const rca = await shoot(
      slackPage(
        [
          { title: '#alerts', messages: [snapshot(parent, '1 reply')] },
          {
            title: 'Thread',
            subtitle: '#alerts',
            thread: true,
            messages: [snapshot(parent), snapshot(waiting, '(edited)')],
          },
        ],
        CAPTION,
      ),
      'slack-rca.png',
    );
    // The model's mass mention and its link to a host nobody named reach the page as text, never as a ping or link.
    expect(rca.text).toContain('<!channel>');
    expect(rca.hrefs).toContain('http://prometheus.example:9090/graph');
    expect(rca.hrefs.some((href) => href.includes('evil.example'))).toBe(false);
    expect(rca.text).toContain('approved by');

    const ask = buttonsOf(waiting).find((b) => b.action_id === 'lestrade_ask')!;
    await postInteraction(svc.base, clickPayload(waiting, ask, ALICE));
    await postInteraction(svc.base, submitPayload(slack, ALICE, 'Would raising the memory limit alone be enough?'));
    const answer = await waitFor('the answer in the thread', async () =>
      slack.state.all().find((m) => m.metadata?.event_type === 'lestrade_answer'),
    );
    const thread = await shoot(
      slackPage(
        [
          {
            title: 'Thread',
            subtitle: '#alerts',
            thread: true,
            messages: [snapshot(parent), snapshot(waiting, '(edited)'), snapshot(answer)],
          },
        ],
        CAPTION,
      ),
      'slack-thread.png',
    );
    expect(thread.text).toContain('Follow-up: Would raising the memory limit alone be enough?');
    expect(thread.text).toContain('POOL_MAX=50');

    await finalWriteBack(svc, id, 'teams');
    const card = JSON.parse(teams.received.at(-1)!.body).attachments[0].content;
    const shown = await shoot(teamsPage(card, TEAMS_CAPTION), 'teams-card.png');
    expect(shown.text).toContain('Severity: CRITICAL');
    expect(shown.text).toContain('Open in Lestrade');
    expect(shown.hrefs.some((href) => href.includes('evil.example'))).toBe(false);
  });
});
