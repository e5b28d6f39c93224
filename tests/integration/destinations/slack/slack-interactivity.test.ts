import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSlackDouble, type SlackDouble } from '../../../helpers/doubles/slack-double.js';
import { amDelivery, postAlertmanager } from '../../../helpers/destinations-harness.js';
import { runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, toolResults, type Script } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, startTestService, waitFor } from '../../../helpers/service.js';
import {
  buttonsOf,
  clickPayload,
  postInteraction,
  SIGNING_SECRET,
  submitPayload,
} from '../../../helpers/slack-interactivity.js';

/**
 * Approvals answered from Slack, through serve: the run pauses, its thread reply carries Approve / Deny,
 * a signed click decides through the API's path (decidedBy slack:<id>), the message is edited in place;
 * unsigned, forged and stale requests and people not on destinations.slack.approvers change nothing.
 */
const h = serviceHarness();
const TOKEN = 'xoxb-test-token';
const CHANNEL = 'C0ALERTS01';
const ALICE = { id: 'U0ALICE01', name: 'alice' };
const BOB = { id: 'U0BOB0001', name: 'bob' };
const MALLORY = { id: 'U0MALLORY', name: 'mallory' };
let slack: SlackDouble;

beforeEach(async () => {
  slack = await startSlackDouble({ token: TOKEN });
  slack.state.addChannel(CHANNEL, 'alerts');
  slack.state.userGroups.set('S0OPS0001', [BOB.id]);
});
afterEach(async () => {
  expect(slack.violations).toEqual([]);
  expect(slack.responseViolations).toEqual([]);
  await slack.close();
});

/** Asks to restart (side-effecting: the run pauses), then answers with what became of the call. */
const script: Script = (req) => {
  const results = toolResults(req);
  if (results.length === 0) return { toolCalls: [{ id: 'c-restart', name: 'restart', arguments: { name: 'api' } }] };
  const { status, feedback } = results[0]!.result as { status: string; feedback?: string };
  return { content: `## Root cause\n\nThe pool ran dry.\n\n- restart: ${status}${feedback ? ` (${feedback})` : ''}` };
};

async function paused(fp: number) {
  const rt = runtimeConfig(
    'destinations: { slack: { approvers: [U0ALICE01, S0OPS0001] } }\nwriteBack: { backoffMs: 200, attempts: 8 }\n',
  );
  h.llm = await startScriptedLlm(script);
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: h.llm.baseUrl,
    LESTRADE_MODEL: 'scripted',
    LOG_LEVEL: 'warn',
    LESTRADE_CONFIG: rt.config,
    SLACK_BOT_TOKEN: TOKEN,
    SLACK_API_URL: slack.apiUrl,
    SLACK_CHANNEL: CHANNEL,
    SLACK_SIGNING_SECRET: `old-secret,${SIGNING_SECRET}`,
  });
  const base = h.svc.base;
  const out = await postAlertmanager(h.svc, amDelivery([{ name: 'KubePodOOMKilled', fp }]));
  const id = out.queued[0] as string;
  await statusIs(base, id, ['awaiting_approval']);
  const reply = await waitFor('the awaiting-approval reply with its buttons', async () =>
    slack.state.all().find((m) => m.thread_ts && m.ts !== m.thread_ts && buttonsOf(m).length === 2),
  );
  const [approve, deny] = buttonsOf(reply);
  return { base, id, rt, reply, approve: approve!, deny: deny!, marker: rt.marker('api') };
}

const inv = async (base: string, id: string) => (await getJson(`${base}/api/investigations/${id}`)).body;

describe('Slack interactivity: approvals from the thread', { timeout: 240_000 }, () => {
  it('shows the pending call; a signed Approve by an approver resumes the run, recorded as slack:<id>; edited in place', async () => {
    const { base, id, reply, approve, marker } = await paused(1);
    const text = JSON.stringify(reply.blocks);
    expect(text).toContain('*restart*');
    expect(text).toContain('\\"name\\": \\"api\\"');
    expect(approve).toMatchObject({ action_id: 'lestrade_approve', value: JSON.stringify({ i: id, c: 'c-restart' }) });
    const r = await postInteraction(base, clickPayload(reply, approve, ALICE));
    expect(r).toEqual({ status: 200, text: '' });
    const done = await statusIs(base, id, ['completed']);
    expect(existsSync(marker)).toBe(true);
    const call = done.toolCalls.find((c: any) => c.name === 'restart' && c.decidedBy);
    expect(call.decidedBy).toEqual({ via: 'slack', user: ALICE.id, name: 'alice' });
    // The same reply now shows the RCA and who approved: edited, never posted again.
    await waitFor('the reply to show the RCA', async () =>
      JSON.stringify(reply.blocks).includes('Root-cause analysis'),
    );
    expect(JSON.stringify(reply.blocks)).toContain(`approved by <@${ALICE.id}>`);
    expect(reply.edits).toBeGreaterThanOrEqual(1);
    expect(slack.state.replies(CHANNEL, reply.thread_ts!)).toHaveLength(1);
    expect(buttonsOf(reply).map((b) => b.action_id)).toEqual([
      'lestrade_ask',
      'lestrade_rerun',
      'lestrade_correct',
      'lestrade_wrong',
    ]);
    // A late click on the old button: an ephemeral naming who decided, nothing else.
    await postInteraction(base, clickPayload(reply, approve, BOB));
    await waitFor('an ephemeral to bob', async () => slack.state.ephemerals.find((e) => e.user === BOB.id));
    expect(slack.state.ephemerals.find((e) => e.user === BOB.id)!.text).toBe(`Already approved by <@${ALICE.id}>.`);
  });

  it('Deny opens a modal; its submission denies the call with the reason, and the tool never runs', async () => {
    const { base, id, reply, deny, marker } = await paused(2);
    expect(await postInteraction(base, clickPayload(reply, deny, ALICE, 'trigger-deny-1'))).toEqual({
      status: 200,
      text: '',
    });
    expect(slack.state.views).toHaveLength(1);
    expect(slack.state.views[0]!.trigger_id).toBe('trigger-deny-1');
    expect((await inv(base, id)).status).toBe('awaiting_approval');
    const r = await postInteraction(base, submitPayload(slack, ALICE, 'not during business hours'));
    expect(r).toEqual({ status: 200, text: '' });
    const done = await statusIs(base, id, ['completed']);
    expect(done.rca).toContain('restart: denied (not during business hours)');
    const call = done.toolCalls.find((c: any) => c.name === 'restart' && c.decidedBy);
    expect(call).toMatchObject({ status: 'denied', decidedBy: { via: 'slack', user: ALICE.id } });
    expect(existsSync(marker)).toBe(false);
  });

  it('unsigned, forged, stale and other-secret requests get 401 and change nothing', async () => {
    const { base, id, reply, approve } = await paused(3);
    const click = clickPayload(reply, approve, ALICE);
    const now = Math.floor(Date.now() / 1000);
    expect((await postInteraction(base, click, { unsigned: true })).status).toBe(401);
    expect((await postInteraction(base, click, { secret: 'not-our-secret' })).status).toBe(401);
    expect((await postInteraction(base, click, { timestamp: now - 400 })).status).toBe(401);
    expect((await postInteraction(base, click, { timestamp: now + 400 })).status).toBe(401);
    // Signed, then the body changed on the way: the signature covers the raw body.
    const forged = await postInteraction(base, click, {
      headers: { 'x-slack-signature': `v0=${'0'.repeat(64)}` },
    });
    expect(forged.status).toBe(401);
    // The rotated-out secret still verifies (both are configured) — proved by a signed click that is taken.
    const now2 = await inv(base, id);
    expect(now2.status).toBe('awaiting_approval');
    expect(now2.approvals.pending.map((p: any) => p.toolCallId)).toEqual(['c-restart']);
    expect(slack.state.ephemerals).toEqual([]);
    expect(slack.state.views).toEqual([]);
    expect((await postInteraction(base, click, { secret: 'old-secret' })).status).toBe(200);
    await statusIs(base, id, ['completed', 'queued', 'running']);
  });

  it('refuses someone not on the approvers list (ephemeral naming the key); accepts a user-group member', async () => {
    const { base, id, reply, approve } = await paused(4);
    expect((await postInteraction(base, clickPayload(reply, approve, MALLORY))).status).toBe(200);
    const refusal = await waitFor('an ephemeral to mallory', async () =>
      slack.state.ephemerals.find((e) => e.user === MALLORY.id),
    );
    expect(refusal.text).toContain('destinations.slack.approvers');
    expect(refusal.thread_ts).toBe(reply.thread_ts);
    expect((await inv(base, id)).status).toBe('awaiting_approval');
    expect((await postInteraction(base, clickPayload(reply, approve, BOB))).status).toBe(200);
    const done = await statusIs(base, id, ['completed']);
    expect(done.toolCalls.find((c: any) => c.name === 'restart' && c.decidedBy).decidedBy).toEqual({
      via: 'slack',
      user: BOB.id,
      name: 'bob',
    });
    expect(slack.calls('usergroups.users.list').map((c) => c.args.usergroup)).toContain('S0OPS0001');
  });
});
