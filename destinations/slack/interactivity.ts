import type { WebClient } from '@slack/web-api';
import type { HumanActions } from '../../src/actions/human-actions.js';
import type { Logger } from '../../src/log.js';
import type { DecidedBy } from '../../src/records/approval.js';
import type { DecideReply } from '../../src/actions/decide-calls.js';
import type { DeliveryOutcome, WebhookHandler } from '../../src/registration/source.js';
import type { Investigation } from '../../src/store/investigation.js';
import { ACTION, who, type ButtonValue } from './approval-blocks.js';
import type { Approvers } from './approvers.js';
import type { SlackConfig } from './config.js';
import {
  parseInteraction,
  type BlockActionsPayload,
  type InteractionPayload,
  type ViewSubmissionPayload,
} from './interaction-payload.js';
import { askModal, denyModal, INPUT, MODAL, type ModalContext } from './modals.js';
import { checkSlackHeaders, MAX_SKEW_SECONDS, verifySlackSignature } from './signature.js';
import { slackCall } from './slack-client.js';
import { isVerdictAction, onVerdictClick, onWrongSubmission } from './feedback-interactions.js';

export interface InteractivityDeps {
  client: WebClient;
  config: Pick<SlackConfig, 'signingSecret'>;
  actions: HumanActions;
  approvers: Approvers;
  log: Logger;
}

const ACK: DeliveryOutcome = { kind: 'reply', status: 200, body: undefined };
const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;

/**
 * POST /webhooks/slack/interactivity: the signature and its timestamp are checked (headers first, then the
 * HMAC over the raw body) before the form is parsed, and a signature already seen (a replay) does nothing; then a button (block_actions) or a modal's submit
 * (view_submission) is re-checked against the investigation's state and decided through the API's path.
 * Refusals reach only the person who clicked (an ephemeral message, or the modal's field error).
 */
export function interactivityWebhook(deps: InteractivityDeps): WebhookHandler {
  return {
    accepts: FORM,
    checkHeaders: (headers) => checkSlackHeaders(headers),
    verify: (delivery) => verifySlackSignature(deps.config.signingSecret, delivery),
    parse: parseInteraction,
    handle: async (body, delivery) => {
      // A signed request is taken once: its signature is remembered for as long as its timestamp is accepted
      // (MAX_SKEW_SECONDS either side of now), so a replay is acknowledged and does nothing.
      const signature = delivery.headers['x-slack-signature'] ?? '';
      if (!(await deps.actions.firstSeen('slack-interactivity', signature, 2 * MAX_SKEW_SECONDS))) {
        deps.log.warn({ signature: signature.slice(0, 16) }, 'Slack request replayed: acknowledged, nothing done');
        return ACK;
      }
      const p = body as InteractionPayload;
      if (p.type === 'block_actions') await onBlockActions(deps, p);
      else if (p.type === 'view_submission') return onViewSubmission(deps, p);
      return ACK;
    },
  };
}

async function onBlockActions(deps: InteractivityDeps, p: BlockActionsPayload): Promise<void> {
  const action = p.actions[0]!;
  const where: ModalContext = {
    i: '',
    ...optional('ch', p.channel?.id ?? p.container?.channel_id),
    ...optional('th', p.message?.thread_ts ?? p.container?.thread_ts),
  };
  const tell = (text: string) => ephemeral(deps, where, p.user.id, text);
  const value = buttonValue(action.value);
  if (!value || !Object.values(ACTION).includes(action.action_id as never))
    return tell("This button is not one of Lestrade's.");
  if (isVerdictAction(action.action_id)) {
    const open = (view: Record<string, unknown>) => openModal(deps, p.trigger_id, view, tell);
    return onVerdictClick(deps, p, value, where, { tell, open });
  }
  const allowed = await deps.approvers.check(p.user.id);
  if (!allowed.ok) {
    deps.log.warn({ user: p.user.id, action: action.action_id, id: value.i }, 'Slack action refused: not an approver');
    return tell(`Not allowed: ${allowed.why}.`);
  }
  const inv = await deps.actions.get(value.i);
  if (!inv) return tell(`No investigation ${value.i} (it may have expired).`);
  where.i = inv.id;
  if (action.action_id === ACTION.ask) return openModal(deps, p.trigger_id, askModal(inv, where), tell);
  if (action.action_id === ACTION.rerun) return rerun(deps, inv, p.user.id, tell);
  if (!value.c) return tell('This button names no call.');
  where.c = value.c;
  const earlier = await alreadyDecided(deps, inv, value.c);
  if (earlier) return tell(earlier);
  if (action.action_id === ACTION.deny) return openModal(deps, p.trigger_id, denyModal(inv, value.c, where), tell);
  const reply = await deps.actions.decide(inv, [{ toolCallId: value.c, approved: true, decidedBy: decider(p.user) }]);
  const problem = await afterDecision(deps, inv, value.c, reply);
  if (problem) await tell(problem);
}

async function onViewSubmission(deps: InteractivityDeps, p: ViewSubmissionPayload): Promise<DeliveryOutcome> {
  const { callback_id: callback, private_metadata: meta, state } = p.view;
  if (callback === MODAL.wrong)
    return onWrongSubmission(deps, p, modalContext(meta), (where, text) => ephemeral(deps, where, p.user.id, text));
  if (callback !== MODAL.deny && callback !== MODAL.ask) return ACK;
  const field = callback === MODAL.deny ? INPUT.reason : INPUT.question;
  const refuse = (text: string): DeliveryOutcome => ({
    kind: 'reply',
    status: 200,
    body: { response_action: 'errors', errors: { [field]: text.slice(0, 2000) } },
  });
  const where = modalContext(meta);
  const allowed = await deps.approvers.check(p.user.id);
  if (!allowed.ok) return refuse(`Not allowed: ${allowed.why}.`);
  const inv = where ? await deps.actions.get(where.i) : null;
  if (!inv || !where) return refuse('No such investigation (it may have expired).');
  const text = state.values[field]?.[field]?.value?.trim() ?? '';
  if (callback === MODAL.ask) {
    if (!text) return refuse('Write a question.');
    const reply = await deps.actions.ask(inv, text);
    if (reply.status !== 202) return refuse(errorOf(reply));
    await ephemeral(deps, where, p.user.id, 'Your question is queued; the answer will be posted in this thread.');
    return ACK;
  }
  const decision = { toolCallId: where.c ?? '', approved: false, decidedBy: decider(p.user) };
  const reply = await deps.actions.decide(inv, [{ ...decision, ...(text ? { feedback: text } : {}) }]);
  const problem = await afterDecision(deps, inv, decision.toolCallId, reply);
  return problem ? refuse(problem) : ACK;
}

/**
 * Re-run: through the API's path (a finished run, no follow-up in progress); queued, every destination re-renders
 * its message (re-running, then the new run's RCA in the same message); refused, the clicker is told why.
 */
async function rerun(
  deps: InteractivityDeps,
  inv: Investigation,
  user: string,
  tell: (text: string) => Promise<void>,
): Promise<void> {
  const reply = await deps.actions.rerun(inv);
  if (reply.status !== 202) return tell(`Not re-run: ${errorOf(reply)}.`);
  deps.log.info({ id: inv.id, user, run: reply.body.run }, 'investigation re-run from Slack');
  await deps.actions.refresh(inv.id);
}

/** Recorded: every destination re-renders the message. Refused: why, naming who decided first when someone did. */
async function afterDecision(
  deps: InteractivityDeps,
  inv: Investigation,
  toolCallId: string,
  reply: DecideReply,
): Promise<string | null> {
  if (reply.status === 202) {
    await deps.actions.refresh(inv.id);
    return null;
  }
  return (await alreadyDecided(deps, inv, toolCallId)) ?? errorOf(reply);
}

async function alreadyDecided(deps: InteractivityDeps, inv: Investigation, toolCallId: string): Promise<string | null> {
  const d = await deps.actions.decisionOf(inv, toolCallId);
  if (!d) return null;
  return `Already ${d.approved ? 'approved' : 'denied'} by ${who(d.decidedBy ?? null)}.`;
}

async function openModal(
  deps: InteractivityDeps,
  triggerId: string | undefined,
  view: Record<string, unknown>,
  tell: (text: string) => Promise<void>,
): Promise<void> {
  if (!triggerId) return tell('Slack sent no trigger to open a dialog with; try again.');
  try {
    await slackCall(() => deps.client.views.open({ trigger_id: triggerId, view: view as never }), null);
  } catch (err) {
    deps.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not open a Slack modal');
    await tell('Could not open the dialog; try again.');
  }
}

/** A message only the clicker sees; failing to send one is logged, never an error of the request. */
async function ephemeral(deps: InteractivityDeps, where: ModalContext, user: string, text: string): Promise<void> {
  if (!where.ch) return;
  const channel = where.ch;
  try {
    await slackCall(
      () => deps.client.chat.postEphemeral({ channel, user, text, ...(where.th ? { thread_ts: where.th } : {}) }),
      channel,
    );
  } catch (err) {
    deps.log.warn(
      { err: err instanceof Error ? err.message : String(err) },
      'could not send a Slack ephemeral message',
    );
  }
}

function decider(user: BlockActionsPayload['user']): DecidedBy {
  const name = user.name ?? user.username;
  return { via: 'slack', user: user.id, ...(name ? { name: name.slice(0, 200) } : {}) };
}

function errorOf(reply: DecideReply): string {
  const error = reply.body.error;
  return typeof error === 'string' ? error : `refused (${reply.status})`;
}

function buttonValue(text: string | undefined): ButtonValue | null {
  const v = jsonObject(text);
  if (!v || typeof v.i !== 'string') return null;
  return { i: v.i, ...(typeof v.c === 'string' ? { c: v.c } : {}) };
}

function modalContext(text: string): ModalContext | null {
  const v = jsonObject(text);
  if (!v || typeof v.i !== 'string') return null;
  return {
    i: v.i,
    ...optional('c', v.c),
    ...optional('ch', v.ch),
    ...optional('th', v.th),
  };
}

function jsonObject(text: string | undefined): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text ?? '');
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null; // not ours: answered as such by the caller
  }
}

function optional<K extends string>(key: K, v: unknown): Partial<Record<K, string>> {
  return typeof v === 'string' && v ? ({ [key]: v } as Record<K, string>) : {};
}
