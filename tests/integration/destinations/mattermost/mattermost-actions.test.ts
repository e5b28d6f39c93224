import { existsSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { amDelivery, postAlertmanager } from '../../../helpers/destinations-harness.js';
import {
  mmId,
  startMattermostDouble,
  type MattermostDouble,
  type MmStoredPost,
} from '../../../helpers/doubles/mattermost-double.js';
import { runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, toolResults, type Script } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, startTestService, waitFor } from '../../../helpers/service.js';

/**
 * Approvals and verdicts from Mattermost's interactive message actions, through serve: the run pauses, its reply
 * carries Approve / Deny whose context holds our HMAC; a click with a good HMAC by an approver decides through the
 * API's path (decidedBy mattermost:<user id>) and is answered with an update of the post; a missing or wrong HMAC,
 * a context moved to another post, and people not on destinations.mattermost.approvers change nothing.
 */
const h = serviceHarness();
const CHANNEL = mmId();
const SECRET = 's'.repeat(40);
const ALICE = { id: mmId(), name: 'alice' };
const BOB = { id: mmId(), name: 'bob' };
const MALLORY = { id: mmId(), name: 'mallory' };
let mm: MattermostDouble;

beforeEach(async () => {
  mm = await startMattermostDouble();
  mm.state.channels.add(CHANNEL);
  for (const u of [ALICE, BOB, MALLORY]) mm.state.addUser(u.id, u.name);
});
afterEach(async () => {
  expect(mm.violations).toEqual([]);
  expect(mm.responseViolations).toEqual([]);
  await mm.close();
});

const script: Script = (req) => {
  const results = toolResults(req);
  if (results.length === 0) return { toolCalls: [{ id: 'c-restart', name: 'restart', arguments: { name: 'api' } }] };
  const { status, feedback } = results[0]!.result as { status: string; feedback?: string };
  return { content: `## Root cause\n\nThe pool ran dry.\n\n- restart: ${status}${feedback ? ` (${feedback})` : ''}` };
};

type Action = { id: string; name: string; integration: { url: string; context: Record<string, unknown> } };
const actionsOf = (p: MmStoredPost): Action[] =>
  ((p.props.attachments as Array<{ actions?: Action[] }> | undefined) ?? []).flatMap((a) => a.actions ?? []);
const named = (p: MmStoredPost, name: string) => actionsOf(p).find((a) => a.name === name)!;

async function paused(fp: number) {
  const rt = runtimeConfig(
    `destinations: { mattermost: { approvers: [${ALICE.id}, bob] } }\nwriteBack: { backoffMs: 200, attempts: 8 }\n`,
  );
  h.llm = await startScriptedLlm(script);
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: h.llm.baseUrl,
    LESTRADE_MODEL: 'scripted',
    LOG_LEVEL: 'warn',
    LESTRADE_CONFIG: rt.config,
    MATTERMOST_URL: mm.url,
    MATTERMOST_TOKEN: mm.token,
    MATTERMOST_CHANNEL: CHANNEL,
    MATTERMOST_ACTION_URL: 'https://lestrade.example/webhooks/mattermost/actions',
    MATTERMOST_ACTION_SECRET: SECRET,
  });
  const base = h.svc.base;
  const out = await postAlertmanager(h.svc, amDelivery([{ name: 'KubePodOOMKilled', fp }]));
  const id = out.queued[0] as string;
  await statusIs(base, id, ['awaiting_approval']);
  const reply = await waitFor('the awaiting-approval reply with its buttons', async () =>
    mm.state.posts.find((p) => p.root_id && actionsOf(p).length === 2),
  );
  return { base, id, reply, marker: rt.marker('api') };
}

/** What Mattermost POSTs to the integration URL when someone clicks (PostActionIntegrationRequest). */
async function click(base: string, post: MmStoredPost, action: Action, user: { id: string; name: string }, over = {}) {
  const body = {
    user_id: user.id,
    user_name: user.name,
    channel_id: post.channel_id,
    team_id: mmId(),
    post_id: post.id,
    type: '',
    data_source: '',
    context: action.integration.context,
    ...over,
  };
  const res = await fetch(`${base}/webhooks/mattermost/actions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : null };
}

/** What Mattermost POSTs to the dialog's URL when it is submitted. */
async function submit(base: string, state: string, user: { id: string }, submission: Record<string, string>) {
  const res = await fetch(`${base}/webhooks/mattermost/actions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      type: 'dialog_submission',
      callback_id: 'x',
      state,
      user_id: user.id,
      channel_id: CHANNEL,
      team_id: mmId(),
      submission,
      cancelled: false,
    }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, any>) : null };
}

const inv = async (base: string, id: string) => (await getJson(`${base}/api/investigations/${id}`)).body;

describe('Mattermost actions: approvals from the thread', { timeout: 240_000 }, () => {
  it('Approve by an approver (by id): the run resumes, recorded as mattermost:<id>; answered with an update; a replay changes nothing', async () => {
    const { base, id, reply, marker } = await paused(1);
    expect(reply.message).toContain('Awaiting approval');
    const approve = named(reply, 'Approve');
    expect(approve.integration.url).toBe('https://lestrade.example/webhooks/mattermost/actions');
    expect(approve.integration.context).toMatchObject({ i: id, a: 'approve', c: 'c-restart', p: reply.id });
    const r = await click(base, reply, approve, ALICE);
    expect(r.status).toBe(200);
    expect(r.body!.ephemeral_text).toBe('Approved by alice.');
    expect(JSON.stringify(r.body!.update)).toMatch(/[Aa]pproved by alice \\\\\(mattermost\\\\\)/);
    const done = await statusIs(base, id, ['completed']);
    expect(existsSync(marker)).toBe(true);
    expect(done.toolCalls.find((c: any) => c.name === 'restart' && c.decidedBy).decidedBy).toEqual({
      via: 'mattermost',
      user: ALICE.id,
      name: 'alice',
    });
    // The same reply now shows the RCA: patched, never posted again; its buttons are the verdict and Re-run.
    await waitFor('the reply to show the RCA', async () => reply.message.includes('Root-cause analysis'));
    expect(mm.state.replies(reply.root_id)).toHaveLength(1);
    await waitFor('the verdict buttons', async () => actionsOf(reply).length === 3);
    expect(actionsOf(reply).map((a) => a.name)).toEqual(['Correct', 'Wrong', 'Re-run']);
    // A replay of the first click: answered, nothing decided again.
    const again = await click(base, reply, approve, ALICE);
    expect(again.body!.ephemeral_text).toBe('Already approved by alice (mattermost).');
    expect((await inv(base, id)).status).toBe('completed');
  });

  it('Deny by an approver named by username (looked up): denied, and the tool never runs', async () => {
    const { base, id, reply, marker } = await paused(2);
    const r = await click(base, reply, named(reply, 'Deny'), { id: BOB.id, name: 'not-what-the-server-says' });
    expect(r.body!.ephemeral_text).toBe('Denied by bob.');
    const done = await statusIs(base, id, ['completed']);
    expect(done.toolCalls.find((c: any) => c.name === 'restart' && c.decidedBy)).toMatchObject({
      status: 'denied',
      decidedBy: { via: 'mattermost', user: BOB.id, name: 'bob' },
    });
    expect(existsSync(marker)).toBe(false);
    expect(mm.requests.some((q) => q.operationId === 'GetUser' && q.path === `/api/v4/users/${BOB.id}`)).toBe(true);
  });

  it('a missing, wrong or moved HMAC is a 401 and changes nothing; a non-approver is told the key to change', async () => {
    const { base, id, reply } = await paused(3);
    const approve = named(reply, 'Approve');
    const ctx = approve.integration.context;
    const { s: _s, ...unsigned } = ctx;
    expect((await click(base, reply, approve, ALICE, { context: unsigned })).status).toBe(401);
    expect((await click(base, reply, approve, ALICE, { context: { ...ctx, s: '0'.repeat(64) } })).status).toBe(401);
    expect((await click(base, reply, approve, ALICE, { context: { ...ctx, c: 'c-other' } })).status).toBe(401);
    // Signed for this post: refused on another one.
    expect((await click(base, reply, approve, ALICE, { post_id: reply.root_id })).status).toBe(401);
    const refused = await click(base, reply, approve, MALLORY);
    expect(refused.status).toBe(200);
    expect(refused.body!.ephemeral_text).toContain('destinations.mattermost.approvers');
    expect(refused.body!.update).toBeUndefined();
    const now = await inv(base, id);
    expect(now.status).toBe('awaiting_approval');
    expect(now.approvals.pending.map((p: any) => p.toolCallId)).toEqual(['c-restart']);
  });

  it('verdicts: anyone may say Correct once (a replay changes nothing); Re-run is bound to its run', async () => {
    const { base, id, reply } = await paused(4);
    await click(base, reply, named(reply, 'Approve'), ALICE);
    await statusIs(base, id, ['completed']);
    await waitFor('the verdict buttons', async () => actionsOf(reply).length === 3);
    const correct = await click(base, reply, named(reply, 'Correct'), MALLORY);
    expect(correct.body!.ephemeral_text).toBe('Recorded: you said the analysis was correct. Thank you.');
    expect((await click(base, reply, named(reply, 'Correct'), MALLORY)).body!.ephemeral_text).toBe(
      'You had already said so.',
    );
    expect((await inv(base, id)).feedback).toEqual([
      expect.objectContaining({ verdict: 'correct', by: { via: 'mattermost', user: MALLORY.id } }),
    ]);
    // Re-run: not for a non-approver; an approver's click re-runs run 1 once, a replay does nothing.
    const rerun = named(reply, 'Re-run');
    expect((await click(base, reply, rerun, MALLORY)).body!.ephemeral_text).toContain('Not allowed');
    expect((await click(base, reply, rerun, ALICE)).body!.ephemeral_text).toBe('Re-run by alice.');
    expect((await click(base, reply, rerun, ALICE)).body!.ephemeral_text).toBe('Already re-run (run 2 is the latest).');
    expect((await inv(base, id)).run).toBe(2);
    // Run 2 pauses on the same call: the same reply is patched (never a second one), and the parent stays one post.
    await statusIs(base, id, ['awaiting_approval']);
    await waitFor(
      'the reply to wait for approval again',
      async () => named(reply, 'Approve')?.integration.context.r === undefined && actionsOf(reply).length === 2,
    );
    expect(mm.state.replies(reply.root_id)).toHaveLength(1);
    expect(mm.state.roots(CHANNEL)).toHaveLength(1);
  });

  it('Deny with a trigger opens a dialog; its signed submission denies with the reason; a forged state is a 401', async () => {
    const { base, id, reply, marker } = await paused(5);
    const r = await click(base, reply, named(reply, 'Deny'), ALICE, { trigger_id: 'trigger-1' });
    expect(r).toEqual({ status: 200, body: {} });
    expect(mm.state.dialogs).toHaveLength(1);
    const dialog = mm.state.dialogs[0]!;
    expect(dialog).toMatchObject({
      trigger_id: 'trigger-1',
      url: 'https://lestrade.example/webhooks/mattermost/actions',
    });
    expect((await inv(base, id)).status).toBe('awaiting_approval');
    const state = dialog.dialog.state as string;
    const forged = JSON.stringify({ ...JSON.parse(state), a: 'approve' });
    expect((await submit(base, forged, ALICE, { reason: 'x' })).status).toBe(401);
    expect((await submit(base, state, MALLORY, { reason: 'x' })).body!.error).toContain(
      'destinations.mattermost.approvers',
    );
    expect(await submit(base, state, ALICE, { reason: 'not during business hours' })).toEqual({
      status: 200,
      body: {},
    });
    const done = await statusIs(base, id, ['completed']);
    expect(done.rca).toContain('restart: denied (not during business hours)');
    expect(done.toolCalls.find((c: any) => c.name === 'restart' && c.decidedBy)).toMatchObject({
      status: 'denied',
      decidedBy: { via: 'mattermost', user: ALICE.id },
    });
    expect(existsSync(marker)).toBe(false);
  });

  it('Wrong opens a dialog asking for the root cause; it is required, then recorded with the verdict', async () => {
    const { base, id, reply } = await paused(6);
    await click(base, reply, named(reply, 'Approve'), ALICE);
    await statusIs(base, id, ['completed']);
    await waitFor('the verdict buttons', async () => actionsOf(reply).length === 3);
    expect((await click(base, reply, named(reply, 'Wrong'), MALLORY, { trigger_id: 'trigger-2' })).body).toEqual({});
    const state = mm.state.dialogs.at(-1)!.dialog.state as string;
    expect((await submit(base, state, MALLORY, { root_cause: '  ' })).body).toEqual({
      errors: { root_cause: 'Write what the actual root cause was.' },
    });
    expect((await submit(base, state, MALLORY, { root_cause: 'a bad deploy' })).body).toEqual({});
    expect((await inv(base, id)).feedback).toEqual([
      expect.objectContaining({
        verdict: 'wrong',
        rootCause: 'a bad deploy',
        by: { via: 'mattermost', user: MALLORY.id },
      }),
    ]);
  });
});
