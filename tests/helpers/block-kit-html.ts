/**
 * Test-side renderers for the docs' screenshots: Slack Block Kit (header, section, context, actions, divider;
 * mrkdwn) and Teams Adaptive Cards (TextBlock, FactSet, ActionSet, Container, Action.OpenUrl) as HTML pages
 * styled roughly like each client. Not Slack's or Teams' own rendering: ours, in Chromium. Every text is
 * HTML-escaped before any markup is added; links are live only for http(s) URLs the message itself made links.
 */

type Json = Record<string, any>;

/**
 * The emoji our messages use, drawn as coloured symbols the test machine's fonts have (no emoji font is
 * installed there): shortcodes in mrkdwn and the raw characters in headers alike.
 */
const EMOJI: Record<string, [glyph: string, color: string]> = {
  red_circle: ['●', '#e01e5a'],
  fire: ['●', '#e01e5a'],
  white_check_mark: ['✔', '#2eb67d'],
  raised_hand: ['⚠', '#ecb22e'],
  arrow_forward: ['▶', '#1264a3'],
  no_entry: ['✖', '#e01e5a'],
  speech_balloon: ['✎', '#1264a3'],
  arrows_counterclockwise: ['↻', '#1264a3'],
};
const RAW_EMOJI: Record<string, string> = { '🔥': 'fire', '✅': 'white_check_mark' };

function emoji(name: string): string | null {
  const e = EMOJI[name];
  return e ? `<span class="emoji" style="color:${e[1]}">${e[0]}</span>` : null;
}

/** Raw emoji characters in escaped text as the symbols above. */
function rawEmoji(html: string): string {
  return html.replace(/🔥|✅/gu, (c) => emoji(RAW_EMOJI[c] ?? '') ?? c);
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Slack escapes only these three in message text; everything else is literal. */
function unescapeSlack(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function safeHref(url: string): string | null {
  return /^https?:\/\//i.test(url) ? escapeHtml(url) : null;
}

/** One `<…>` control sequence of Slack mrkdwn: a link, a user or group mention, a special mention. */
function control(inner: string): string {
  const [target = '', label] = inner.split('|', 2);
  if (target.startsWith('@')) return `<span class="mention">@${escapeHtml(target.slice(1))}</span>`;
  if (target.startsWith('!')) return `<span class="mention">@${escapeHtml(target.slice(1).split('^')[0]!)}</span>`;
  const href = safeHref(unescapeSlack(target));
  const text = inlineFormat(escapeHtml(unescapeSlack(label ?? target)));
  return href ? `<a href="${href}">${text}</a>` : text;
}

/** Bold, italic, strike and emoji on already escaped text (code spans are cut out before). */
function inlineFormat(html: string): string {
  return html
    .replace(/(^|[\s(])\*(\S(?:[^*\n]*?\S)?)\*(?=$|[\s).,:;!?])/g, '$1<b>$2</b>')
    .replace(/(^|[\s(])_(\S(?:[^_\n]*?\S)?)_(?=$|[\s).,:;!?])/g, '$1<i>$2</i>')
    .replace(/(^|[\s(])~(\S(?:[^~\n]*?\S)?)~(?=$|[\s).,:;!?])/g, '$1<s>$2</s>')
    .replace(/:([a-z0-9_+-]+):/g, (m, name: string) => emoji(name) ?? m);
}

/** A run of text without code: control sequences become markup, the rest is escaped, then formatted. */
function textRun(text: string): string {
  let out = '';
  let plain = '';
  const flush = () => {
    out += inlineFormat(escapeHtml(unescapeSlack(plain)));
    plain = '';
  };
  for (const part of text.split(/(<[^<>\n]*>)/)) {
    if (/^<[^<>\n]*>$/.test(part)) {
      flush();
      out += control(part.slice(1, -1));
    } else plain += part;
  }
  flush();
  return out;
}

/** A line: inline code spans kept verbatim (escaped), the rest formatted. */
function line(text: string): string {
  return text
    .split(/(`[^`\n]+`)/)
    .map((p) => (/^`[^`\n]+`$/.test(p) ? `<code>${escapeHtml(unescapeSlack(p.slice(1, -1)))}</code>` : textRun(p)))
    .join('');
}

/** Slack mrkdwn as HTML: ``` blocks, `>` quotes, lines; see the rules above. */
export function mrkdwnToHtml(text: string): string {
  return text
    .split(/(```[\s\S]*?```)/)
    .map((chunk) => {
      if (/^```[\s\S]*```$/.test(chunk))
        return `<pre>${escapeHtml(unescapeSlack(chunk.slice(3, -3).replace(/^\n/, '')))}</pre>`;
      return chunk
        .split('\n')
        .map((l) => (l.startsWith('>') ? `<blockquote>${line(l.replace(/^> ?/, ''))}</blockquote>` : line(l)))
        .join('<br>')
        .replace(/<\/blockquote><br>/g, '</blockquote>');
    })
    .join('');
}

function textObject(t: Json | undefined): string {
  if (!t) return '';
  return t.type === 'mrkdwn' ? mrkdwnToHtml(String(t.text)) : escapeHtml(String(t.text)).replace(/\n/g, '<br>');
}

function button(b: Json): string {
  const style = b.style === 'primary' || b.style === 'danger' ? ` ${String(b.style)}` : '';
  return `<span class="button${style}">${escapeHtml(String(b.text?.text ?? ''))}</span>`;
}

function blockHtml(b: Json): string {
  switch (b.type) {
    case 'header':
      return `<div class="header">${rawEmoji(escapeHtml(String(b.text?.text ?? '')))}</div>`;
    case 'section': {
      const fields = (b.fields ?? []) as Json[];
      const grid = fields.length
        ? `<div class="fields">${fields.map((f) => `<div>${textObject(f)}</div>`).join('')}</div>`
        : '';
      return `<div class="section">${textObject(b.text)}${grid}</div>`;
    }
    case 'context':
      return `<div class="context">${((b.elements ?? []) as Json[]).map((e) => `<span>${textObject(e)}</span>`).join('')}</div>`;
    case 'actions':
      return `<div class="actions">${((b.elements ?? []) as Json[]).map(button).join('')}</div>`;
    case 'divider':
      return '<hr>';
    default:
      return `<div class="unknown">(${escapeHtml(String(b.type))} block)</div>`;
  }
}

export interface RenderedMessage {
  blocks: unknown[];
  /** Shown beside the bot's name, e.g. "edited". */
  note?: string;
}

function messageHtml(m: RenderedMessage, time: string): string {
  const note = m.note ? ` <span class="note">${escapeHtml(m.note)}</span>` : '';
  return `<div class="message"><div class="avatar">L</div><div class="body">
<div class="who"><b>Lestrade</b> <span class="app">APP</span> <span class="time">${escapeHtml(time)}</span>${note}</div>
${(m.blocks as Json[]).map(blockHtml).join('\n')}</div></div>`;
}

const SLACK_CSS = `
body { margin: 0; font: 15px/1.46 "Lato", "Helvetica Neue", Arial, sans-serif; color: #1d1c1d; background: #fff; }
.pane { width: 760px; border: 1px solid #ddd; border-radius: 8px; margin: 12px; overflow: hidden; }
.pane > h2 { margin: 0; padding: 10px 16px; font-size: 16px; border-bottom: 1px solid #ddd; background: #f8f8f8; }
.pane > h2 small { font-weight: normal; color: #616061; margin-left: 6px; }
.replies { padding: 4px 16px; color: #616061; font-size: 13px; border-bottom: 1px solid #eee; }
.message { display: flex; gap: 8px; padding: 8px 16px; }
.avatar { flex: 0 0 36px; height: 36px; border-radius: 6px; background: #3b4b8c; color: #fff; font-weight: bold;
  display: flex; align-items: center; justify-content: center; }
.body { flex: 1; min-width: 0; }
.who .app { font-size: 10px; background: #e8e8e8; color: #616061; padding: 1px 3px; border-radius: 2px; }
.who .time, .who .note { color: #616061; font-size: 12px; }
.header { font-size: 18px; font-weight: 900; margin: 4px 0; }
.section { margin: 4px 0; white-space: normal; word-wrap: break-word; }
.context { font-size: 12px; color: #616061; margin: 4px 0; display: flex; gap: 8px; flex-wrap: wrap; }
.actions { margin: 8px 0 4px; display: flex; gap: 8px; }
.button { border: 1px solid #bbb; border-radius: 4px; padding: 3px 12px; font-size: 13px; font-weight: bold; }
.button.primary { background: #007a5a; color: #fff; border-color: #007a5a; }
.button.danger { color: #e01e5a; border-color: #e01e5a; }
code { font: 12px Monaco, Menlo, monospace; color: #e01e5a; background: #f6f6f6; border: 1px solid #ddd;
  border-radius: 3px; padding: 0 3px; }
pre { font: 12px/1.5 Monaco, Menlo, monospace; background: #f8f8f8; border: 1px solid #ddd; border-radius: 4px;
  padding: 8px; white-space: pre-wrap; margin: 4px 0; }
blockquote { border-left: 4px solid #ddd; margin: 2px 0; padding-left: 8px; }
a { color: #1264a3; text-decoration: none; }
.emoji { font-weight: bold; }
.mention { background: #e8f5fa; color: #1264a3; border-radius: 3px; padding: 0 2px; }
.caption { margin: 0 12px 12px; font-size: 12px; color: #616061; }
`;

/** A pane as Slack shows a channel or a thread: a title, then messages (a thread's parent first). */
export interface SlackPane {
  title: string;
  subtitle?: string;
  messages: RenderedMessage[];
  /** A thread: "n replies" after the first message. */
  thread?: boolean;
}

export function slackPage(panes: SlackPane[], caption: string): string {
  const body = panes
    .map((p) => {
      const msgs = p.messages.map((m, i) => {
        const html = messageHtml(m, `10:0${Math.min(i, 9)} AM`);
        const n = p.messages.length - 1;
        return p.thread && i === 0 && n > 0
          ? `${html}<div class="replies">${n} repl${n === 1 ? 'y' : 'ies'}</div>`
          : html;
      });
      const sub = p.subtitle ? `<small>${escapeHtml(p.subtitle)}</small>` : '';
      return `<div class="pane"><h2>${escapeHtml(p.title)}${sub}</h2>${msgs.join('\n')}</div>`;
    })
    .join('\n');
  return page(SLACK_CSS, `${body}<p class="caption">${escapeHtml(caption)}</p>`);
}

function page(css: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'"><style>${css}</style></head><body>${body}</body></html>`;
}

// ---- Teams: Adaptive Card 1.4 ----

/** The Markdown subset a TextBlock renders (bold, italic, links, bullet and numbered lists); the rest is literal. */
export function cardMarkdownToHtml(md: string): string {
  const inline = (s: string) =>
    escapeHtml(s.replace(/\\([\\`*_[\]#<>])/g, '$1'))
      .replace(/\*\*(.+?)\*\*/g, '<b>$1</b>')
      .replace(/(^|\s)_(.+?)_(?=$|\s|[.,;:!?])/g, '$1<i>$2</i>')
      .replace(/\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/g, (_m, t: string, u: string) => `<a href="${u}">${t}</a>`);
  const out: string[] = [];
  let list: 'ul' | 'ol' | null = null;
  const close = () => {
    if (list) out.push(`</${list}>`);
    list = null;
  };
  for (const raw of md.split('\n')) {
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(raw);
    const numbered = /^\s*\d+\.\s+(.*)$/.exec(raw);
    let kind: 'ul' | 'ol' | null = null;
    if (bullet) kind = 'ul';
    else if (numbered) kind = 'ol';
    if (kind) {
      if (list !== kind) {
        close();
        out.push(`<${kind}>`);
        list = kind;
      }
      out.push(`<li>${inline((bullet ?? numbered)![1]!)}</li>`);
      continue;
    }
    close();
    if (raw.trim()) out.push(`<p>${inline(raw)}</p>`);
  }
  close();
  return out.join('');
}

const COLORS: Record<string, string> = { Attention: '#c4314b', Warning: '#c19c00', Accent: '#6264a7', Good: '#237b4b' };

function cardElement(e: Json): string {
  const classes = [e.isSubtle ? 'subtle' : '', e.separator ? 'separator' : '', e.size ? `size-${e.size}` : '']
    .filter(Boolean)
    .join(' ');
  switch (e.type) {
    case 'TextBlock': {
      const style = [e.weight === 'Bolder' ? 'font-weight:bold' : '', COLORS[e.color] ? `color:${COLORS[e.color]}` : '']
        .filter(Boolean)
        .join(';');
      return `<div class="text ${classes}" style="${style}">${cardMarkdownToHtml(String(e.text ?? ''))}</div>`;
    }
    case 'FactSet':
      return `<table class="facts">${((e.facts ?? []) as Json[])
        .map(
          (f) =>
            `<tr><th>${cardMarkdownToHtml(String(f.title))}</th><td>${cardMarkdownToHtml(String(f.value))}</td></tr>`,
        )
        .join('')}</table>`;
    case 'Container':
      return `<div class="container ${classes}">${((e.items ?? []) as Json[]).map(cardElement).join('')}</div>`;
    case 'ActionSet':
      return cardActions((e.actions ?? []) as Json[]);
    default:
      return `<div class="unknown">(${escapeHtml(String(e.type))})</div>`;
  }
}

function cardActions(actions: Json[]): string {
  return `<div class="card-actions">${actions
    .map((a) => `<span class="card-button">${escapeHtml(String(a.title ?? ''))}</span>`)
    .join('')}</div>`;
}

const TEAMS_CSS = `
body { margin: 0; font: 14px/1.43 "Segoe UI", "Helvetica Neue", Arial, sans-serif; color: #242424; background: #f5f5f5; }
.chat { width: 640px; margin: 12px; }
.who { font-size: 12px; color: #616161; margin: 0 0 4px 44px; }
.row { display: flex; gap: 8px; }
.avatar { flex: 0 0 36px; height: 36px; border-radius: 50%; background: #6264a7; color: #fff; font-weight: bold;
  display: flex; align-items: center; justify-content: center; }
.card { flex: 1; background: #fff; border-radius: 6px; padding: 12px 16px; box-shadow: 0 1px 2px rgba(0,0,0,.15); }
.text { margin: 6px 0; word-wrap: break-word; }
.text p { margin: 0 0 4px; }
.text ul, .text ol { margin: 2px 0; padding-left: 20px; }
.separator { border-top: 1px solid #e0e0e0; padding-top: 8px; }
.subtle { color: #707070; }
.size-Small { font-size: 12px; }
.size-Large { font-size: 18px; }
.facts { border-collapse: collapse; margin: 6px 0; font-size: 13px; }
.facts th { text-align: left; padding: 1px 12px 1px 0; font-weight: 600; }
.facts td, .facts th { vertical-align: top; }
.facts p { margin: 0; }
.card-actions { margin-top: 10px; display: flex; gap: 8px; }
.card-button { border: 1px solid #d1d1d1; border-radius: 4px; padding: 4px 12px; font-weight: 600; color: #6264a7; }
a { color: #6264a7; }
.caption { margin: 0 12px 12px; font-size: 12px; color: #616161; }
`;

/** The card as a Teams chat shows it: sender, then the card's body and its actions. */
export function teamsPage(card: Json, caption: string): string {
  const body = ((card.body ?? []) as Json[]).map(cardElement).join('\n');
  const actions = card.actions ? cardActions(card.actions as Json[]) : '';
  return page(
    TEAMS_CSS,
    `<div class="chat"><div class="who">Workflows · Lestrade</div><div class="row"><div class="avatar">L</div>
<div class="card">${body}${actions}</div></div></div><p class="caption">${escapeHtml(caption)}</p>`,
  );
}
