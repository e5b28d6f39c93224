import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSlackDouble, type SlackDouble } from '../../../helpers/doubles/slack-double.js';
import { amDelivery, postAlertmanager } from '../../../helpers/destinations-harness.js';
import { runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm } from '../../../helpers/scripted-llm.js';
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
 * Correct / Wrong under a finished RCA in Slack: anyone in the channel may rate (not only approvers); Wrong asks
 * for the actual root cause in a modal. A replayed click, or the same verdict again, changes nothing twice.
 */
const h = serviceHarness();
const TOKEN = 'xoxb-test-token';
const CHANNEL = 'C0ALERTS01';
const CAROL = { id: 'U0CAROL01', name: 'carol' };
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

async function completed() {
  // Approvers are configured, and carol is not one: rating is not theirs alone.
  const rt = runtimeConfig('destinations: { slack: { approvers: [U0ALICE01] } }\n');
  h.llm = await startScriptedLlm(() => ({ content: '## Root cause\n\nThe pool ran dry.' }));
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
  const out = await postAlertmanager(h.svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 9 }]));
  const id = out.queued[0] as string;
  await statusIs(base, id, ['completed']);
  const reply = await waitFor('the RCA reply with its buttons', async () =>
    slack.state.all().find((m) => m.metadata?.event_type === 'lestrade_rca' && buttonsOf(m).length === 4),
  );
  const button = (action: string) => buttonsOf(reply).find((b) => b.action_id === action)!;
  return { base, id, reply, button };
}

const feedbackOf = async (base: string, id: string) =>
  (await getJson(`${base}/api/investigations/${id}`)).body.feedback as any[];
const ephemeralsTo = (user: string) => slack.state.ephemerals.filter((e) => e.user === user);

describe('Slack: verdicts on an RCA', { timeout: 240_000 }, () => {
  it('takes Correct from anyone in the channel once; a replayed click and a second click change nothing', async () => {
    const { base, id, reply, button } = await completed();
    const correct = button('lestrade_correct');
    expect(correct).toMatchObject({ block_id: 'lestrade_feedback', value: JSON.stringify({ i: id }) });
    const click = clickPayload(reply, correct, CAROL);
    const timestamp = Math.floor(Date.now() / 1000);
    expect(await postInteraction(base, click, { timestamp })).toEqual({ status: 200, text: '' });
    await waitFor('the thanks', async () => ephemeralsTo(CAROL.id).length === 1);
    expect(ephemeralsTo(CAROL.id)[0]!.text).toContain('Recorded: you said the RCA was correct');
    expect(ephemeralsTo(CAROL.id)[0]!.thread_ts).toBe(reply.thread_ts);
    const first = await feedbackOf(base, id);
    expect(first).toEqual([{ verdict: 'correct', by: { via: 'slack', user: CAROL.id }, at: expect.any(String) }]);

    // The same signed bytes again: acknowledged, nothing done, nobody told.
    expect(await postInteraction(base, click, { timestamp })).toEqual({ status: 200, text: '' });
    // A fresh click (Slack signs each afresh): taken, and changes nothing.
    expect((await postInteraction(base, clickPayload(reply, correct, CAROL))).status).toBe(200);
    await waitFor('the second answer', async () => ephemeralsTo(CAROL.id).length === 2);
    expect(ephemeralsTo(CAROL.id)[1]!.text).toBe('You had already said so.');
    expect(await feedbackOf(base, id)).toEqual(first);
  });

  it('opens a modal for Wrong and records the actual root cause once it is written', async () => {
    const { base, id, reply, button } = await completed();
    expect((await postInteraction(base, clickPayload(reply, button('lestrade_wrong'), CAROL))).status).toBe(200);
    await waitFor('the modal', async () => slack.state.views.length === 1);
    expect(slack.state.views[0]!.view).toMatchObject({ callback_id: 'lestrade_wrong' });
    expect(await feedbackOf(base, id)).toEqual([]);

    const empty = await postInteraction(base, submitPayload(slack, CAROL, '   '));
    expect(JSON.parse(empty.text)).toEqual({
      response_action: 'errors',
      errors: { root_cause: 'Write what the actual root cause was.' },
    });
    const cause = 'The <!here> node ran out of *disk*';
    expect(await postInteraction(base, submitPayload(slack, CAROL, cause))).toEqual({ status: 200, text: '' });
    expect(await feedbackOf(base, id)).toEqual([
      { verdict: 'wrong', rootCause: cause, by: { via: 'slack', user: CAROL.id }, at: expect.any(String) },
    ]);
    await waitFor('the thanks', async () => ephemeralsTo(CAROL.id).length === 1);
    expect(ephemeralsTo(CAROL.id)[0]!.text).toContain('the RCA was wrong');
    // Submitted again (a retry of the same modal): nothing changes, not even the time.
    const before = await feedbackOf(base, id);
    expect(await postInteraction(base, submitPayload(slack, CAROL, cause))).toEqual({ status: 200, text: '' });
    expect(await feedbackOf(base, id)).toEqual(before);
  });
});
