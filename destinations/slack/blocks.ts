import type { DestinationView } from '../../src/delivery/destination.js';
import { escapeMrkdwn, inlineMrkdwn, neutraliseMentions, toMrkdwn } from './mrkdwn.js';

/**
 * Every Slack message Lestrade sends is built here, from state, whole: a change (a group
 * resolving, a newer RCA, later an approval decided) re-renders the message and chat.update
 * replaces it. Buttons (approve, deny, ask, re-run) are one more `actions` block from the same state.
 */
export type Block = Record<string, unknown>;

export interface SlackMessage {
  /** The notification fallback and what screen readers read. */
  text: string;
  blocks: Block[];
}

/** Slack's limits (Block Kit reference). */
export const MAX_BLOCKS = 50;
export const MAX_SECTION_CHARS = 3000;
const MAX_HEADER_CHARS = 150;
const MAX_CONTEXT_ELEMENTS = 10;
const MAX_LABELS_SHOWN = 8;

/** What the parent message of a thread shows: the group's state and the latest RCA's headline. */
export interface ParentState {
  title: string;
  severity: string;
  source: string;
  firing: number;
  resolved: number;
  status: 'open' | 'resolved';
  headline: string;
  labels: Record<string, string>;
  investigationUrl: string | null;
  allowedHosts: readonly string[];
  /** Blocks the interactive parts add (buttons), rendered last. */
  actions?: Block[];
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
    investigationUrl: view.investigation.url,
    allowedHosts: view.allowedHosts,
  };
}

export function renderParent(s: ParentState): SlackMessage {
  const hosts = new Set(s.allowedHosts);
  const state =
    s.status === 'resolved'
      ? `:white_check_mark: *Resolved*${s.resolved > 1 ? ` (${s.resolved} alerts)` : ''}`
      : `:red_circle: *${s.firing} firing*${s.resolved ? ` · ${s.resolved} resolved` : ''}`;
  const blocks: Block[] = [
    header(`${s.status === 'resolved' ? '✅' : '🔥'} ${s.title}`),
    section(`${state} · severity *${escapeMrkdwn(s.severity)}* · source ${escapeMrkdwn(s.source)}`),
  ];
  if (s.headline) blocks.push(section(`*Latest analysis:* ${inlineMrkdwn(s.headline, { allowedHosts: hosts })}`));
  blocks.push(context(s.labels, s.investigationUrl, 'Analyses are in this thread.'));
  blocks.push(...(s.actions ?? []));
  const text = `${s.status === 'resolved' ? 'Resolved' : `${s.firing} firing`}: ${s.title}`;
  return { text: escapeMrkdwn(text), blocks };
}

/** The RCA in the thread: heading, preamble, one or more sections per RCA section, context. */
export function renderRca(view: DestinationView, actions: Block[] = []): SlackMessage {
  const hosts = new Set(view.allowedHosts);
  const blocks: Block[] = [header(`Root-cause analysis: ${view.investigation.title}`), contextText(view.doc.preamble)];
  const body = view.doc.sections
    .flatMap((md) => splitText(toMrkdwn(md, { allowedHosts: hosts }), MAX_SECTION_CHARS))
    .map(section);
  const room = MAX_BLOCKS - blocks.length - 2 - actions.length;
  if (body.length > room) {
    blocks.push(
      ...body.slice(0, room - 1),
      section("_(The analysis is longer; the rest is on the investigation's page.)_"),
    );
  } else {
    blocks.push(...body);
  }
  blocks.push(
    context(view.issue.labels, view.investigation.url, `Investigation \`${view.investigation.id}\``),
    ...actions,
  );
  return { text: escapeMrkdwn(`Root-cause analysis: ${view.investigation.title}`), blocks };
}

export function header(text: string): Block {
  return {
    type: 'header',
    text: { type: 'plain_text', text: clip(neutraliseMentions(text), MAX_HEADER_CHARS), emoji: true },
  };
}

export function section(mrkdwn: string): Block {
  return { type: 'section', text: { type: 'mrkdwn', text: clip(mrkdwn, MAX_SECTION_CHARS) } };
}

function contextText(text: string): Block {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: `_${escapeMrkdwn(text)}_` }] };
}

/** Labels as `name=value` (escaped), then a link to the investigation when a public URL is configured. */
export function context(labels: Record<string, string>, url: string | null, note: string): Block {
  const entries = Object.entries(labels).sort(([a], [b]) => a.localeCompare(b));
  const shown = entries
    .slice(0, MAX_LABELS_SHOWN)
    .map(([k, v]) => `\`${escapeMrkdwn(`${k}=${v}`).replace(/`/g, 'ˋ')}\``);
  if (entries.length > MAX_LABELS_SHOWN) shown.push(`+${entries.length - MAX_LABELS_SHOWN} more`);
  const elements: Block[] = [];
  if (shown.length) elements.push({ type: 'mrkdwn', text: clip(shown.join(' '), MAX_SECTION_CHARS) });
  elements.push({
    type: 'mrkdwn',
    text: url ? `<${url.replace(/[|<> ]/g, encodeURIComponent)}|Open in Lestrade> · ${note}` : note,
  });
  return { type: 'context', elements: elements.slice(0, MAX_CONTEXT_ELEMENTS) };
}

/** Cuts mrkdwn into pieces of at most max characters, at line ends where it can. */
export function splitText(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const cut = rest.lastIndexOf('\n', max);
    const at = cut > max / 2 ? cut : max;
    out.push(rest.slice(0, at));
    rest = rest.slice(at).replace(/^\n/, '');
  }
  if (rest.trim()) out.push(rest);
  return out;
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
