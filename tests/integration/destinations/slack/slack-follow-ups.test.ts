import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { startSlackDouble, type SlackDouble, type SlackMessageRecord } from '../../../helpers/doubles/slack-double.js';
import { amDelivery, postAlertmanager } from '../../../helpers/destinations-harness.js';
import { postJson, runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, type ChatRequest, type Script } from '../../../helpers/scripted-llm.js';
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
 * A finished RCA in Slack offers Ask a follow-up and Re-run (to approvers only). Re-run goes through the API's
 * path and the new run's RCA edits the same reply; a follow-up's answer is posted in the thread, sanitised as
 * the RCA is, exactly once per question (found by our metadata after a dropped connection).
 */
const h = serviceHarness();
const TOKEN = 'xoxb-test-token';
const CHANNEL = 'C0ALERTS01';
const ALICE = { id: 'U0ALICE01', name: 'alice' };
const MALLORY = { id: 'U0MALLORY', name: 'mallory' };
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

/** What the model answers a follow-up with: mentions, a link to a host nobody named, one to Prometheus. */
const HOSTILE_ANSWER =
  'The pool is **too small**. <!here> @channel ping <@U0ADMIN>; see [exfil](https://evil.example/x?d=1) ' +
  'and [graph](http://prometheus.example:9090/graph).';

const lastUser = (req: ChatRequest) => req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';

/** Run n's RCA says its number; run 2 waits for `release` while it is set. */
function model() {
  let runs = 0;
  const held: { release: (() => void) | null; gate: Promise<void> | null } = { release: null, gate: null };
  const script: Script = async (req) => {
    if (String(lastUser(req)).includes('Follow-up question')) return { content: HOSTILE_ANSWER };
    runs += 1;
    if (runs === 2 && held.gate) await held.gate;
    return { content: `## Root cause\n\nRCA number ${runs}: the pool ran dry.` };
  };
  const hold = () => {
    held.gate = new Promise<void>((r) => (held.release = r));
  };
  return { script, hold, release: () => held.release?.() };
}

async function completed(m = model()) {
  const rt = runtimeConfig(
    'destinations: { slack: { approvers: [U0ALICE01] } }\nwriteBack: { backoffMs: 200, attempts: 8 }\n',
  );
  h.llm = await startScriptedLlm(m.script);
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
  });
  const base = h.svc.base;
  const out = await postAlertmanager(h.svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 7 }]));
  const id = out.queued[0] as string;
  await statusIs(base, id, ['completed']);
  const reply = await waitFor('the RCA reply with its buttons', async () =>
    slack.state.all().find((m) => m.metadata?.event_type === 'lestrade_rca' && buttonsOf(m).length === 4),
  );
  const button = (action: string) => buttonsOf(reply).find((b) => b.action_id === action)!;
  return { base, id, reply, parent: slack.state.parents(CHANNEL)[0]!, button };
}

const record = async (base: string, id: string) => (await getJson(`${base}/api/investigations/${id}`)).body;
const text = (m: SlackMessageRecord) => JSON.stringify(m.blocks);
const answersIn = (parentTs: string) =>
  slack.state.replies(CHANNEL, parentTs).filter((m) => m.metadata?.event_type === 'lestrade_answer');

describe('Slack: Re-run from a finished RCA', { timeout: 240_000 }, () => {
  it('refuses a non-approver; an approver re-runs it and the new RCA edits the same reply (no second message)', async () => {
    const m = model();
    // A failed assertion must not leave run 2 hanging in the model (the service would wait for it to close).
    onTestFinished(() => m.release());
    const { base, id, reply, parent, button } = await completed(m);
    expect(buttonsOf(reply).map((b) => b.action_id)).toEqual([
      'lestrade_ask',
      'lestrade_rerun',
      'lestrade_correct',
      'lestrade_wrong',
    ]);
    // Captured now: the reply loses its buttons while the re-run runs (a late click comes from an older view).
    const rerun = button('lestrade_rerun');
    expect(rerun.value).toBe(JSON.stringify({ i: id }));
    expect(text(reply)).toContain('RCA number 1');
    const postsBefore = slack.calls('chat.postMessage').length;
    expect(postsBefore).toBe(2);

    // Not an approver: an ephemeral naming the key, and nothing runs.
    expect((await postInteraction(base, clickPayload(reply, rerun, MALLORY))).status).toBe(200);
    const refusal = await waitFor('an ephemeral to mallory', async () =>
      slack.state.ephemerals.find((e) => e.user === MALLORY.id),
    );
    expect(refusal.text).toContain('destinations.slack.approvers');
    expect((await record(base, id)).run ?? 1).toBe(1);

    // An approver: run 2 starts; while it runs the reply says so, and a second click is refused.
    m.hold();
    expect((await postInteraction(base, clickPayload(reply, rerun, ALICE))).status).toBe(200);
    await waitFor('run 2 to start', async () => (await record(base, id)).run === 2);
    await waitFor('the reply to show the re-run', async () => text(reply).includes('Re-running'));
    expect(text(reply)).toContain('*Run 2* is under way');
    // The parent keeps the last analysis's headline meanwhile.
    expect(text(parent)).toContain('RCA number 1');
    await postInteraction(base, clickPayload(reply, rerun, ALICE));
    const busy = await waitFor('an ephemeral to alice', async () =>
      slack.state.ephemerals.find((e) => e.user === ALICE.id),
    );
    expect(busy.text).toMatch(/^Not re-run: only a completed, failed or cancelled investigation can be re-run/);
    expect(busy.thread_ts).toBe(reply.thread_ts);
    m.release();

    const done = await statusIs(base, id, ['completed']);
    expect(done.run).toBe(2);
    await waitFor('the reply to show run 2', async () => text(reply).includes('RCA number 2'));
    await waitFor('the parent to show run 2', async () => text(parent).includes('RCA number 2'));
    expect(text(reply)).not.toContain('RCA number 1');
    // One parent, one reply, edited in place: no message was posted for the re-run.
    expect(slack.state.parents(CHANNEL)).toHaveLength(1);
    expect(slack.state.replies(CHANNEL, parent.ts)).toEqual([reply]);
    expect(slack.calls('chat.postMessage')).toHaveLength(postsBefore);
    expect(reply.edits).toBeGreaterThanOrEqual(2);
    expect(buttonsOf(reply).map((b) => b.action_id)).toEqual([
      'lestrade_ask',
      'lestrade_rerun',
      'lestrade_correct',
      'lestrade_wrong',
    ]);
    const wb = (await record(base, id)).writeBacks.find((w: any) => w.destination === 'slack');
    expect(wb).toMatchObject({ status: 'written', commentId: `${CHANNEL}/${reply.ts}` });
  });
});

describe('Slack: a replayed signed request', { timeout: 240_000 }, () => {
  it('is acknowledged and does nothing: a Re-run click sent again within its five minutes starts no run', async () => {
    const { base, id, reply, button } = await completed();
    const click = clickPayload(reply, button('lestrade_rerun'), ALICE);
    const timestamp = Math.floor(Date.now() / 1000);
    expect(await postInteraction(base, click, { timestamp })).toEqual({ status: 200, text: '' });
    await waitFor('run 2 to finish', async () => {
      const r = await record(base, id);
      return r.run === 2 && r.status === 'completed';
    });
    const requests = h.llm!.requests.length;
    // The same bytes, the same signature, within the window: what an eavesdropper or a proxy's retry sends.
    expect(await postInteraction(base, click, { timestamp })).toEqual({ status: 200, text: '' });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await record(base, id)).toMatchObject({ run: 2, status: 'completed' });
    expect(h.llm!.requests.length).toBe(requests);
    expect(slack.state.ephemerals).toEqual([]);
    // A new click (Slack signs each one afresh) is taken.
    expect((await postInteraction(base, clickPayload(reply, button('lestrade_rerun'), ALICE))).status).toBe(200);
    await waitFor('run 3', async () => (await record(base, id)).run === 3);
  });
});

describe('Slack: follow-up answers in the thread', { timeout: 240_000 }, () => {
  it('posts the answer of a question asked from Slack in the thread, sanitised, with our metadata', async () => {
    const { base, id, reply, parent, button } = await completed();
    expect(
      (await postInteraction(base, clickPayload(reply, button('lestrade_ask'), ALICE, 'trigger-ask'))).status,
    ).toBe(200);
    expect(slack.state.views.at(-1)!.trigger_id).toBe('trigger-ask');
    const question = 'Why the pool? <!channel> see http://evil.example/q';
    expect(await postInteraction(base, submitPayload(slack, ALICE, question))).toEqual({ status: 200, text: '' });
    const told = await waitFor('the ephemeral', async () => slack.state.ephemerals.find((e) => e.user === ALICE.id));
    expect(told.text).toBe('Your question is queued; the answer will be posted in this thread.');
    const [answer] = await waitFor(
      'the answer in the thread',
      async () => answersIn(parent.ts).length > 0 && answersIn(parent.ts),
    );
    expect(answer!.thread_ts).toBe(parent.ts);
    expect(answer!.metadata).toEqual({
      event_type: 'lestrade_answer',
      event_payload: { investigation_id: id, entry: '0', thread: parent.metadata!.event_payload!.thread },
    });
    const shown = text(answer!);
    expect(shown).toContain('*too small*');
    for (const live of [
      '<!channel>',
      '<!here>',
      '<@U0ADMIN>',
      '<https://evil.example',
      '<http://evil.example',
      '@channel',
    ])
      expect(shown).not.toContain(live);
    expect(shown).toContain('&lt;!here&gt;');
    expect(shown).toContain('<http://prometheus.example:9090/graph|graph>');
    expect(shown).toContain(`<https://lestrade.example/api/investigations/${id}|Open in Lestrade>`);
    expect(shown).toContain('Why the pool?');
    // The RCA reply is untouched by the answer: still one RCA, now one answer.
    expect(slack.state.replies(CHANNEL, parent.ts)).toEqual([reply, answer]);
    expect((await record(base, id)).conversation[0]).toMatchObject({ status: 'answered' });
  });

  it('exactly once per question: a dropped connection after Slack stored the answer; a second question adds one', async () => {
    const { base, id, parent } = await completed();
    slack.faults.add({ path: /chat\.postMessage$/, kind: 'accept-then-drop', times: 1 });
    expect((await postJson(`${base}/api/investigations/${id}/ask`, { question: 'First?' })).status).toBe(202);
    await statusIs(base, id, ['answered'], 20_000, true);
    await waitFor('the fault to be used', async () => slack.faults.pending.length === 0);
    await waitFor('a search of the thread', async () => slack.calls('conversations.replies').length > 0);
    expect((await postJson(`${base}/api/investigations/${id}/ask`, { question: 'Second?' })).status).toBe(202);
    await waitFor('two answers', async () => answersIn(parent.ts).length === 2);
    // Let any late retry land before counting.
    await waitFor('the answer deliveries to settle', async () => {
      const wb = (await record(base, id)).writeBacks.find((w: any) => w.destination === 'slack');
      return wb.status === 'written' && slack.calls('chat.postMessage').length === 4;
    });
    expect(answersIn(parent.ts).map((a) => a.metadata!.event_payload!.entry)).toEqual(['0', '1']);
    expect(text(answersIn(parent.ts)[0]!)).toContain('First?');
    expect(text(answersIn(parent.ts)[1]!)).toContain('Second?');
    expect(slack.state.parents(CHANNEL)).toHaveLength(1);
  });
});
