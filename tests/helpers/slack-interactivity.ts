import { createHmac } from 'node:crypto';
import type { SlackDouble, SlackMessageRecord } from './doubles/slack-double.js';

/** What Slack's client POSTs to the interactivity URL: a form with the payload as JSON, signed. */
export async function postInteraction(
  base: string,
  payload: Record<string, unknown>,
  opts: { secret?: string; timestamp?: number; headers?: Record<string, string>; unsigned?: boolean } = {},
): Promise<{ status: number; text: string }> {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const ts = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const signed = opts.unsigned ? {} : signSlackRequest(opts.secret ?? SIGNING_SECRET, body, ts);
  const res = await fetch(`${base}/webhooks/slack/interactivity`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...signed, ...opts.headers },
    body,
  });
  return { status: res.status, text: await res.text() };
}

export const SIGNING_SECRET = 'slack-signing-secret-test';

/** The buttons of a message: action id → its block and value. */
export function buttonsOf(m: SlackMessageRecord): Array<{ action_id: string; value: string; block_id: string }> {
  return (m.blocks as Array<{ type: string; block_id?: string; elements?: Array<Record<string, string>> }>)
    .filter((b) => b.type === 'actions')
    .flatMap((b) =>
      (b.elements ?? []).map((e) => ({ action_id: e.action_id!, value: e.value!, block_id: b.block_id ?? '' })),
    );
}

/** A block_actions payload as Slack sends it when `user` clicks `button` on message `m`. */
export function clickPayload(
  m: SlackMessageRecord,
  button: { action_id: string; value: string; block_id: string },
  user: { id: string; name: string },
  trigger = `trigger-${Math.random().toString(36).slice(2)}`,
): Record<string, unknown> {
  return {
    type: 'block_actions',
    user: { id: user.id, username: user.name, name: user.name, team_id: 'T0TEST0001' },
    api_app_id: 'A0LESTRADE',
    token: 'legacy-verification-token',
    trigger_id: trigger,
    team: { id: 'T0TEST0001', domain: 'lestrade-test' },
    container: {
      type: 'message',
      message_ts: m.ts,
      channel_id: m.channel,
      is_ephemeral: false,
      thread_ts: m.thread_ts,
    },
    channel: { id: m.channel, name: 'alerts' },
    message: { type: 'message', ts: m.ts, thread_ts: m.thread_ts, text: m.text, blocks: m.blocks },
    response_url: 'https://hooks.slack.com/actions/T0TEST0001/1/x',
    actions: [
      { type: 'button', action_id: button.action_id, block_id: button.block_id, value: button.value, action_ts: '1' },
    ],
  };
}

/** A view_submission of the modal the double last opened, with `text` typed into its input. */
export function submitPayload(
  slack: SlackDouble,
  user: { id: string; name: string },
  text: string,
): Record<string, unknown> {
  const opened = slack.state.views.at(-1)!;
  const input = (opened.view.blocks as Array<{ type: string; block_id: string }>).find((b) => b.type === 'input')!;
  return {
    type: 'view_submission',
    user: { id: user.id, username: user.name, name: user.name, team_id: 'T0TEST0001' },
    api_app_id: 'A0LESTRADE',
    trigger_id: 'trigger-submit',
    view: {
      ...opened.view,
      id: opened.id,
      state: { values: { [input.block_id]: { [input.block_id]: { type: 'plain_text_input', value: text } } } },
    },
  };
}

/** Slack's signing, written here from its docs (not our verifier's code): v0=hex(HMAC-SHA256(secret, v0:ts:body)). */
function signSlackRequest(secret: string, body: string, timestamp: number): Record<string, string> {
  const sig = createHmac('sha256', secret).update(`v0:${timestamp}:${body}`).digest('hex');
  return { 'x-slack-signature': `v0=${sig}`, 'x-slack-request-timestamp': String(timestamp) };
}
