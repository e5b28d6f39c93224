import type { DestinationView, PendingCallView } from '../../src/destinations/destination.js';
import type { DecidedBy } from '../../src/records/approval.js';
import { clip, context, header, renderRca, section, type Block, type SlackMessage } from './blocks.js';
import { escapeMrkdwn } from './mrkdwn.js';

/** The action ids of our buttons: what the interactivity handler dispatches on. */
export const ACTION = {
  approve: 'lestrade_approve',
  deny: 'lestrade_deny',
  ask: 'lestrade_ask',
  rerun: 'lestrade_rerun',
  correct: 'lestrade_correct',
  wrong: 'lestrade_wrong',
} as const;

/** A button's value: the investigation and the call it acts on. Ids only: nothing secret, re-checked on click. */
export interface ButtonValue {
  i: string;
  c?: string;
}

const MAX_PENDING_SHOWN = 10;
const MAX_PARAMS_CHARS = 1500;

/**
 * An investigation's message in its thread, whole, from its state: waiting for a human (each pending
 * call with its tool, parameters and why the policy asked, and Approve / Deny when interactive), resuming
 * (who decided what), re-running (a re-run is under way), or the RCA (who decided what, and Ask a follow-up
 * and Re-run when interactive).
 */
export function renderReply(view: DestinationView, interactive: boolean): SlackMessage {
  if (view.investigation.status === 'completed') {
    const extra = [...decidedBlocks(view), ...pendingBlocks(view, interactive)];
    if (interactive && view.pending.length === 0) extra.push(followUpActions(view), verdictActions(view));
    return renderRca(view, extra);
  }
  return renderWaiting(view, interactive);
}

function renderWaiting(view: DestinationView, interactive: boolean): SlackMessage {
  const { title, id } = view.investigation;
  if (isRerunning(view)) return renderRerunning(view);
  const waiting = view.investigation.status === 'awaiting_approval' && view.pending.length > 0;
  const open = view.pending.filter((p) => !p.decision).length;
  const state = waiting
    ? `:raised_hand: *Awaiting approval:* ${open} of ${view.pending.length} call(s) wait for a human.`
    : ':arrow_forward: Every call is decided; the investigation resumes.';
  const blocks: Block[] = [
    header(`${waiting ? 'Awaiting approval' : 'Resuming'}: ${title}`),
    section(state),
    ...pendingBlocks(view, interactive),
    ...decidedBlocks(view),
    context(view.issue.labels, view.investigation.url, `Investigation \`${id}\``),
  ];
  const text = `${waiting ? 'Awaiting approval' : 'Resuming'}: ${title}`;
  return { text: escapeMrkdwn(text), blocks };
}

/** A re-run (run 2 on) queued or running, nothing waiting for a human: its RCA will replace this message. */
function isRerunning(view: DestinationView): boolean {
  const { run, status } = view.investigation;
  return run > 1 && view.pending.length === 0 && (status === 'queued' || status === 'running');
}

function renderRerunning(view: DestinationView): SlackMessage {
  const { title, id, run } = view.investigation;
  const text = `Re-running: ${title}`;
  const blocks: Block[] = [
    header(text),
    section(`:arrows_counterclockwise: *Run ${run}* is under way; this message shows its analysis when it completes.`),
    context(view.issue.labels, view.investigation.url, `Investigation \`${id}\``),
  ];
  return { text: escapeMrkdwn(text), blocks };
}

function pendingBlocks(view: DestinationView, interactive: boolean): Block[] {
  const waiting = view.investigation.status === 'awaiting_approval' || Boolean(view.pending.length);
  const shown = view.pending.slice(0, MAX_PENDING_SHOWN);
  const blocks = shown.flatMap((p, n) => callBlocks(view.investigation.id, p, n, interactive && waiting));
  if (view.pending.length > shown.length)
    blocks.push(section(`_${view.pending.length - shown.length} more call(s): see the investigation's page._`));
  return blocks;
}

function callBlocks(id: string, p: PendingCallView, n: number, buttons: boolean): Block[] {
  const params = escapeMrkdwn(clip(JSON.stringify(p.params, null, 1), MAX_PARAMS_CHARS)).replace(/`/g, 'ˋ');
  const call = section(`*${escapeMrkdwn(p.tool)}* · ${escapeMrkdwn(p.reason)}\n\`\`\`${params}\`\`\``);
  if (p.decision) {
    const verb = p.decision.approved ? ':white_check_mark: Approved' : ':no_entry: Denied';
    const reason = p.decision.feedback ? `: ${escapeMrkdwn(clip(p.decision.feedback, 500))}` : '';
    return [
      call,
      { type: 'context', elements: [{ type: 'mrkdwn', text: `${verb} by ${who(p.decision.by)}${reason}` }] },
    ];
  }
  if (!buttons) return [call];
  const value = JSON.stringify({ i: id, c: p.toolCallId } satisfies ButtonValue);
  return [
    call,
    {
      type: 'actions',
      block_id: `lestrade_call_${n}`,
      elements: [button('Approve', ACTION.approve, value, 'primary'), button('Deny…', ACTION.deny, value, 'danger')],
    },
  ];
}

function decidedBlocks(view: DestinationView): Block[] {
  if (view.decided.length === 0) return [];
  const lines = view.decided.map(
    (d) =>
      `${d.approved ? ':white_check_mark:' : ':no_entry:'} \`${escapeMrkdwn(d.tool)}\` ${d.approved ? 'approved' : 'denied'} by ${who(d.by)}`,
  );
  return [{ type: 'context', elements: [{ type: 'mrkdwn', text: clip(lines.join('\n'), 3000) }] }];
}

/** Ask a follow-up (a modal) and Re-run (after Slack's own confirmation dialog: a run costs tokens). */
function followUpActions(view: DestinationView): Block {
  const value = JSON.stringify({ i: view.investigation.id } satisfies ButtonValue);
  const confirm = {
    title: { type: 'plain_text', text: 'Re-run the investigation?' },
    text: {
      type: 'plain_text',
      text: 'It runs again from the issue, as a new run; its analysis replaces this one here.',
    },
    confirm: { type: 'plain_text', text: 'Re-run' },
    deny: { type: 'plain_text', text: 'Cancel' },
  };
  return {
    type: 'actions',
    block_id: 'lestrade_followup',
    elements: [button('Ask a follow-up', ACTION.ask, value), { ...button('Re-run', ACTION.rerun, value), confirm }],
  };
}

/** Was the RCA right: anyone in the channel may say (docs/feedback.md); Wrong asks for the actual root cause. */
function verdictActions(view: DestinationView): Block {
  const value = JSON.stringify({ i: view.investigation.id } satisfies ButtonValue);
  return {
    type: 'actions',
    block_id: 'lestrade_feedback',
    elements: [button('Correct', ACTION.correct, value, 'primary'), button('Wrong', ACTION.wrong, value, 'danger')],
  };
}

function button(text: string, actionId: string, value: string, style?: 'primary' | 'danger'): Block {
  return {
    type: 'button',
    text: { type: 'plain_text', text },
    action_id: actionId,
    value,
    ...(style ? { style } : {}),
  };
}

/** A Slack decider as a mention of their id (Slack shows the name); anyone else by name and where they decided. */
export function who(by: DecidedBy | null): string {
  if (!by) return 'someone';
  if (by.via === 'slack' && /^[UW][A-Z0-9]{2,}$/.test(by.user)) return `<@${by.user}>`;
  return escapeMrkdwn(`${by.name ?? by.user} (${by.via})`);
}
