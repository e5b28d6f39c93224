import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, waitFor } from '../../../helpers/service.js';
import { startSlackDouble, BOT, type SlackDouble } from '../../../helpers/doubles/slack-double.js';
import {
  amDelivery,
  finalWriteBack,
  postAlertmanager,
  serveWithDestinations,
} from '../../../helpers/destinations-harness.js';

/**
 * Alertmanager alerts → investigation (scripted model) → Slack, through the real service, queue
 * and Redis, against a Slack double that validates every request against the Web API spec.
 */
const h = serviceHarness();
const TOKEN = 'xoxb-test-token';
const CHANNEL = 'C0ALERTS01';
let slack: SlackDouble;

beforeEach(async () => {
  slack = await startSlackDouble({ token: TOKEN });
  slack.state.addChannel(CHANNEL, 'alerts');
});
afterEach(async () => {
  expect(slack.violations).toEqual([]);
  expect(slack.responseViolations).toEqual([]);
  await slack.close();
});

const env = () => ({ SLACK_BOT_TOKEN: TOKEN, SLACK_API_URL: slack.apiUrl, SLACK_CHANNEL: CHANNEL });
const posts = () => slack.calls('chat.postMessage');

async function oneAlert(fp = 1) {
  const svc = await serveWithDestinations(h, env());
  const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp }]));
  expect(out.queued).toHaveLength(1);
  return { svc, id: out.queued[0] as string };
}

describe("Slack: an alert's RCA reaches the routed channel", () => {
  it('posts a parent message and the RCA in its thread, with our metadata, sanitised, recorded in writeBacks', async () => {
    const { svc, id } = await oneAlert();
    const wb = await finalWriteBack(svc, id, 'slack');
    expect(wb).toMatchObject({ status: 'written', target: `slack:${CHANNEL}`, error: null });
    const [parent] = slack.state.parents(CHANNEL);
    expect(slack.state.parents(CHANNEL)).toHaveLength(1);
    const replies = slack.state.replies(CHANNEL, parent!.ts);
    expect(replies).toHaveLength(1);
    expect(wb.commentId).toBe(`${CHANNEL}/${replies[0]!.ts}`);
    expect(wb.url).toBe(
      `${BOT.url}archives/${CHANNEL}/p${replies[0]!.ts.replace('.', '')}?thread_ts=${parent!.ts}&cid=${CHANNEL}`,
    );
    expect(parent!.metadata).toMatchObject({ event_type: 'lestrade_thread' });
    expect(replies[0]!.metadata).toEqual({
      event_type: 'lestrade_rca',
      event_payload: { investigation_id: id, thread: parent!.metadata!.event_payload!.thread },
    });
    const text = JSON.stringify(replies[0]!.blocks);
    // No mass or user mention survives; the link to a host nobody named is not live; Prometheus's is.
    for (const live of ['<!channel>', '<!here>', '<@U0ADMIN>', '<!subteam', '@here']) expect(text).not.toContain(live);
    expect(text).toContain('&lt;!channel&gt;');
    // Neutralised by the shared sanitiser (U+200B, as for tickets) or Slack's own (U+2060): never a bare @here.
    expect(text).toMatch(/@[\u200b\u2060]here/);
    expect(text).not.toContain('<https://evil.example');
    expect(text).toContain('<http://prometheus.example:9090/graph|dashboard>');
    expect(text).toContain('&amp; watch');
    expect(text).toContain(`<https://lestrade.example/api/investigations/${id}|Open in Lestrade>`);
    // The parent carries the group's state and the RCA's headline.
    const parentText = JSON.stringify(parent!.blocks);
    expect(parentText).toContain('1 firing');
    expect(parentText).toContain('The pod ran out of memory.');
    expect(parentText).not.toContain('<!channel>');
  });

  it('updates the parent in place when the alert resolves, and posts nothing new', async () => {
    const { svc, id } = await oneAlert();
    await finalWriteBack(svc, id, 'slack');
    const before = posts().length;
    await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 1, status: 'resolved' }]));
    const [parent] = slack.state.parents(CHANNEL);
    await waitFor('the parent to show resolved', async () => JSON.stringify(parent!.blocks).includes('Resolved'));
    expect(parent!.edits).toBeGreaterThanOrEqual(1);
    expect(posts()).toHaveLength(before);
  });
});

describe('Slack: exactly one message per investigation across faults', () => {
  it('a dropped connection after Slack stored the parent, then the reply: found by our metadata, not posted again', async () => {
    slack.faults.add({ path: /chat\.postMessage$/, kind: 'accept-then-drop', times: 2 });
    const { svc, id } = await oneAlert();
    expect(await finalWriteBack(svc, id, 'slack')).toMatchObject({ status: 'written' });
    expect(slack.faults.pending).toEqual([]);
    expect(slack.state.parents(CHANNEL)).toHaveLength(1);
    expect(slack.state.replies(CHANNEL, slack.state.parents(CHANNEL)[0]!.ts)).toHaveLength(1);
    expect(slack.calls('conversations.history').length).toBeGreaterThanOrEqual(1);
    expect(slack.calls('conversations.replies').length).toBeGreaterThanOrEqual(1);
  });

  it('502 and 429 (Retry-After) are retried through the queue: one parent, one reply', async () => {
    slack.faults.add(
      { path: /chat\.postMessage$/, kind: 'status', status: 502, body: { ok: false, error: 'bad_gateway' } },
      {
        path: /chat\.postMessage$/,
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '1' },
        body: { ok: false, error: 'ratelimited' },
      },
    );
    const { svc, id } = await oneAlert();
    const started = Date.now();
    expect(await finalWriteBack(svc, id, 'slack')).toMatchObject({ status: 'written' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(slack.faults.pending).toEqual([]);
    expect(slack.state.all()).toHaveLength(2);
  });

  it('ok:false ratelimited (HTTP 200) is retried too', async () => {
    slack.faults.add({
      path: /chat\.postMessage$/,
      kind: 'status',
      status: 200,
      body: { ok: false, error: 'ratelimited' },
    });
    const svc = await serveWithDestinations(h, env(), '');
    const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 1 }]));
    expect(await finalWriteBack(svc, out.queued[0], 'slack')).toMatchObject({ status: 'written', attempts: 2 });
    expect(slack.state.all()).toHaveLength(2);
  });
});

describe('Slack: errors that a retry cannot fix end the write-back, naming the fix', () => {
  it('not_in_channel: failed, "invite", no retry storm (found already by the history search)', async () => {
    slack.state.channels.get(CHANNEL)!.member = false;
    const { svc, id } = await oneAlert();
    const wb = await finalWriteBack(svc, id, 'slack');
    expect(wb.status).toBe('failed');
    expect(wb.error).toMatch(/not_in_channel.*invite/);
    expect(wb.attempts).toBe(1);
    expect(posts()).toHaveLength(0);
  });

  it('channel_not_found names SLACK_CHANNEL', async () => {
    const svc = await serveWithDestinations(h, { ...env(), SLACK_CHANNEL: 'C0NOSUCH01' });
    const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 1 }]));
    const wb = await finalWriteBack(svc, out.queued[0], 'slack');
    expect(wb).toMatchObject({ status: 'failed' });
    expect(wb.error).toMatch(/channel_not_found.*SLACK_CHANNEL/);
  });

  it('a revoked token is reported at start-up and in /readyz, the service runs, the delivery fails once', async () => {
    const svc = await serveWithDestinations(h, { ...env(), SLACK_BOT_TOKEN: 'xoxb-revoked' });
    const ready = await waitFor('readyz to show the Slack check', async () => {
      const r = (await getJson(`${svc.base}/readyz`)).body;
      return r.destinations?.slack !== 'checking' && r;
    });
    expect(ready.status).toBe('ready');
    expect(ready.destinations.slack).toMatch(/invalid_auth.*SLACK_BOT_TOKEN/);
    expect(ready.destinations.teams).toMatch(/^off: /);
    const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 1 }]));
    const wb = await finalWriteBack(svc, out.queued[0], 'slack');
    expect(wb.status).toBe('failed');
    expect(wb.error).toMatch(/invalid_auth/);
    expect(posts()).toHaveLength(0);
    expect(slack.calls('auth.test').length).toBeLessThanOrEqual(3);
  });
});
