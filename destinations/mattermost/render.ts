import type { AnswerView, DestinationView, PendingCallView } from '../../src/delivery/destination.js';
import type { DecidedBy } from '../../src/records/approval.js';
import { signContext, type ActionKind, type Unsigned } from './action-context.js';
import { clip, codeBlock, markdown, plain } from './markdown.js';

/** A post's content: its Markdown message and its props (our key, and buttons as message attachments). */
export interface MmMessage {
  message: string;
  props: Record<string, unknown>;
}

/** Where buttons send their clicks, and how they are signed; null when the post carries none. */
export interface ButtonSettings {
  url: string;
  secret: string;
  /** The post the buttons sit on: part of each button's signature. */
  postId: string;
}

/** Mattermost's limit on a post's message (16383 runes); we stay under it. */
const MAX_MESSAGE = 15_000;
const MAX_PARAMS = 1500;
const MAX_PENDING_SHOWN = 10;
const MAX_LABELS = 8;

/** What a thread's parent post shows. */
export interface ParentState {
  title: string;
  severity: string;
  source: string;
  firing: number;
  resolved: number;
  status: 'open' | 'resolved';
  headline: string;
  labels: Record<string, string>;
  url: string | null;
}

export function parentStateOf(view: DestinationView): ParentState {
  return {
    title: view.thread.title,
    severity: view.issue.severity,
    source: view.investigation.source,
    firing: view.thread.firing,
    resolved: view.thread.resolved,
    status: view.thread.status,
    headline: view.headline,
    labels: view.issue.labels,
    url: view.investigation.url,
  };
}

export function renderParent(s: ParentState, key: string): MmMessage {
  const state =
    s.status === 'resolved'
      ? `:white_check_mark: **Resolved**${s.resolved > 1 ? ` (${s.resolved} alerts)` : ''}`
      : `:red_circle: **${s.firing} firing**${s.resolved ? ` · ${s.resolved} resolved` : ''}`;
  const lines = [
    `#### ${s.status === 'resolved' ? '✅' : '🔥'} ${plain(s.title)}`,
    `${state} · severity **${plain(s.severity)}** · source ${plain(s.source)}`,
  ];
  if (s.headline) lines.push(`**Latest analysis:** ${markdown(s.headline)}`);
  lines.push(footer(s.labels, s.url, 'Analyses are in this thread.'));
  return { message: lines.join('\n\n'), props: { lestrade_key: key } };
}

/**
 * An investigation's reply, whole, from its state: the RCA (with Re-run, Correct and Wrong), or the calls waiting
 * for a human (Approve and Deny each), or resuming / re-running. Buttons only with `buttons`.
 */
export function renderReply(view: DestinationView, key: string, buttons: ButtonSettings | null): MmMessage {
  const attachments = [...pendingAttachments(view, buttons)];
  const decided = decidedLines(view);
  let body: string;
  if (view.investigation.status === 'completed') {
    body = rcaBody(view);
    if (buttons && view.pending.length === 0) attachments.push(followUp(view, buttons));
  } else body = waitingBody(view);
  const message = clip(
    [body, decided, footer(view.issue.labels, view.investigation.url, `Investigation \`${view.investigation.id}\``)]
      .filter(Boolean)
      .join('\n\n'),
    MAX_MESSAGE,
  );
  return { message, props: { lestrade_key: key, ...(attachments.length ? { attachments } : {}) } };
}

function rcaBody(view: DestinationView): string {
  const head = `#### Root-cause analysis: ${plain(view.investigation.title)}\n_${plain(view.doc.preamble)}_`;
  return [head, ...view.doc.sections.map(markdown)].join('\n\n');
}

function waitingBody(view: DestinationView): string {
  const { title, run, status } = view.investigation;
  if (run > 1 && view.pending.length === 0 && (status === 'queued' || status === 'running'))
    return `#### Re-running: ${plain(title)}\n:arrows_counterclockwise: **Run ${run}** is under way; this post shows its analysis when it completes.`;
  const waiting = status === 'awaiting_approval' && view.pending.length > 0;
  const open = view.pending.filter((p) => !p.decision).length;
  const state = waiting
    ? `:raised_hand: **Awaiting approval:** ${open} of ${view.pending.length} call(s) wait for a human.`
    : ':arrow_forward: Every call is decided; the investigation resumes.';
  return `#### ${waiting ? 'Awaiting approval' : 'Resuming'}: ${plain(title)}\n${state}`;
}

/** One attachment per pending call: tool, why, parameters, and Approve / Deny or who decided. */
function pendingAttachments(view: DestinationView, buttons: ButtonSettings | null): Record<string, unknown>[] {
  const waiting = view.investigation.status === 'awaiting_approval';
  const shown = view.pending.slice(0, MAX_PENDING_SHOWN).map((p) => callAttachment(view, p, waiting ? buttons : null));
  if (view.pending.length > shown.length)
    shown.push({ text: `_${view.pending.length - shown.length} more call(s): see the investigation's page._` });
  return shown;
}

function callAttachment(view: DestinationView, p: PendingCallView, buttons: ButtonSettings | null) {
  const params = codeBlock(clip(JSON.stringify(p.params, null, 1), MAX_PARAMS));
  const text = `**${plain(p.tool)}** · ${plain(p.reason)}\n${params}`;
  if (p.decision) {
    const verb = p.decision.approved ? ':white_check_mark: Approved' : ':no_entry: Denied';
    const why = p.decision.feedback ? `: ${plain(clip(p.decision.feedback, 500))}` : '';
    return { text: `${text}\n${verb} by ${who(p.decision.by)}${why}` };
  }
  if (!buttons) return { text };
  const base = { i: view.investigation.id, c: p.toolCallId, p: buttons.postId };
  return {
    text,
    actions: [
      button(buttons, 'Approve', 'approve', { ...base, a: 'approve' }, 'primary'),
      button(buttons, 'Deny', 'deny', { ...base, a: 'deny' }, 'danger'),
    ],
  };
}

/** Re-run (bound to the run shown, so a replayed click re-runs nothing), and was the RCA right. */
function followUp(view: DestinationView, buttons: ButtonSettings): Record<string, unknown> {
  const base = { i: view.investigation.id, p: buttons.postId };
  return {
    text: 'Was this analysis right?',
    actions: [
      button(buttons, 'Correct', 'correct', { ...base, a: 'correct' }, 'primary'),
      button(buttons, 'Wrong', 'wrong', { ...base, a: 'wrong' }, 'danger'),
      button(buttons, 'Re-run', 'rerun', { ...base, a: 'rerun', r: view.investigation.run }, 'default'),
    ],
  };
}

function button(b: ButtonSettings, name: string, kind: ActionKind, c: Unsigned, style: string) {
  // Mattermost wants action ids of letters and digits; the call is in the signed context, not the id.
  return {
    id: `lestrade${kind}`,
    name,
    type: 'button',
    style,
    integration: { url: b.url, context: signContext(b.secret, c) },
  };
}

function decidedLines(view: DestinationView): string {
  return view.decided
    .map(
      (d) =>
        `${d.approved ? ':white_check_mark:' : ':no_entry:'} \`${plain(d.tool).replace(/`/g, 'ˋ')}\` ${d.approved ? 'approved' : 'denied'} by ${who(d.by)}`,
    )
    .join('\n');
}

/** A follow-up's answer in the thread: the question (untrusted, escaped), the answer (sanitised Markdown). */
export function renderAnswer(view: DestinationView, a: AnswerView, key: string): MmMessage {
  const message = clip(
    [
      `:speech_balloon: **Follow-up:** ${plain(clip(a.question, 1000))}`,
      markdown(a.answer),
      footer(
        {},
        view.investigation.url,
        `Answer to follow-up ${a.entry + 1} · investigation \`${view.investigation.id}\``,
      ),
    ].join('\n\n'),
    MAX_MESSAGE,
  );
  return { message, props: { lestrade_key: key } };
}

/** Who decided: a name (escaped, never a mention) and where. */
export function who(by: DecidedBy | null): string {
  if (!by) return 'someone';
  return plain(`${by.name ?? by.user} (${by.via})`);
}

function footer(labels: Record<string, string>, url: string | null, note: string): string {
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  const shown = entries.slice(0, MAX_LABELS).map(([k, v]) => `\`${`${k}=${v}`.replace(/[`\r\n]/g, 'ˋ')}\``);
  if (entries.length > MAX_LABELS) shown.push(`+${entries.length - MAX_LABELS} more`);
  const link = url ? `[Open in Lestrade](${url.replace(/[()\s]/g, encodeURIComponent)}) · ` : '';
  return [shown.join(' '), `_${link}${note}_`].filter(Boolean).join('\n');
}
