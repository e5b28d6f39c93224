import { Lexer, type MarkedToken, type Token, type Tokens } from 'marked';
import { hostOf } from '../../src/render/sanitize-markdown.js';

/**
 * Slack mrkdwn from Markdown the engine already sanitised. Everything from the model is
 * escaped (`&`, `<`, `>`), so no `<!channel>`, `<!here>`, `<@U…>` or `<!subteam^…>` can be
 * formed; a bare `@name` gets a word joiner after the `@` so Slack cannot turn it into a mention
 * either. Links become `<url|text>` only to allowed hosts; others are shown as text.
 */
export interface MrkdwnOptions {
  allowedHosts: ReadonlySet<string>;
}

export function toMrkdwn(md: string, opts: MrkdwnOptions): string {
  return blocks(Lexer.lex(md, { gfm: true }), opts)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** One line of Markdown (a headline, a title) as inline mrkdwn. */
export function inlineMrkdwn(md: string, opts: MrkdwnOptions): string {
  return toMrkdwn(md, opts).replace(/\s*\n\s*/g, ' ');
}

/** Plain text for Slack: the three characters it reserves escaped, mentions neutralised. */
export function escapeMrkdwn(text: string): string {
  return neutraliseMentions(text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
}

/** `@here`, `@channel`, `@someone`: a word joiner after the `@`, so nothing is linked or notified. */
export function neutraliseMentions(text: string): string {
  return text.replace(/@(?=[\p{L}\p{N}_.-])/gu, '@\u2060');
}

function blocks(tokens: Token[], opts: MrkdwnOptions): string {
  return tokens
    .map((t) => block(t, opts))
    .filter((s) => s !== '')
    .join('\n\n');
}

function block(token: Token, opts: MrkdwnOptions): string {
  const t = token as MarkedToken;
  switch (t.type) {
    case 'heading':
      return `*${inline(t.tokens, opts)}*`;
    case 'paragraph':
      return inline(t.tokens, opts);
    case 'text':
      return t.tokens ? inline(t.tokens, opts) : escapeMrkdwn(decodeEntities(t.text));
    case 'code':
      return codeBlock(t.text);
    case 'blockquote':
      return blocks(t.tokens, opts)
        .split('\n')
        .map((l) => `> ${l}`)
        .join('\n');
    case 'list':
      return list(t, opts, 0);
    case 'table':
      return codeBlock(t.raw.trimEnd());
    case 'hr':
      return '──────────';
    case 'space':
      return '';
    case 'html':
      return escapeMrkdwn(t.raw.trim());
    default:
      return escapeMrkdwn(decodeEntities(token.raw.trim()));
  }
}

function list(t: Tokens.List, opts: MrkdwnOptions, depth: number): string {
  const start = typeof t.start === 'number' ? t.start : 1;
  return t.items
    .map((item, i) => {
      const bullet = t.ordered ? `${start + i}.` : '•';
      const parts = item.tokens.map((c) =>
        c.type === 'list' ? list(c as Tokens.List, opts, depth + 1) : block(c, opts),
      );
      const body = parts.filter((p) => p !== '').join('\n');
      const check = taskBox(item);
      return `${'    '.repeat(depth)}${bullet} ${check}${body}`;
    })
    .join('\n');
}

/** A task-list item's box: ticked or empty; nothing for an item that is not a task. */
function taskBox(item: Tokens.ListItem): string {
  if (!item.task) return '';
  return item.checked ? '☑ ' : '☐ ';
}

function inline(tokens: readonly Token[] | undefined, opts: MrkdwnOptions): string {
  return (tokens ?? []).map((t) => inlineToken(t, opts)).join('');
}

function inlineToken(token: Token, opts: MrkdwnOptions): string {
  const t = token as MarkedToken;
  switch (t.type) {
    case 'strong':
      return `*${inline(t.tokens, opts)}*`;
    case 'em':
      return `_${inline(t.tokens, opts)}_`;
    case 'del':
      return `~${inline(t.tokens, opts)}~`;
    case 'codespan':
      return `\`${escapeMrkdwn(decodeEntities(t.text)).replace(/`/g, 'ˋ')}\``;
    case 'br':
      return '\n';
    case 'link':
      return link(t, opts);
    case 'text':
      return t.tokens ? inline(t.tokens, opts) : escapeMrkdwn(decodeEntities(t.text));
    case 'escape':
      return escapeMrkdwn(t.text);
    case 'image':
      return escapeMrkdwn(`[image: ${t.text}]`);
    default:
      return escapeMrkdwn(decodeEntities(token.raw));
  }
}

function link(t: Tokens.Link, opts: MrkdwnOptions): string {
  const text = inline(t.tokens, opts) || escapeMrkdwn(t.href);
  const host = hostOf(t.href);
  if (!host || !opts.allowedHosts.has(host)) return `${text} (\`${escapeMrkdwn(t.href)}\`)`;
  // Inside <…|…>: the URL may not hold `|` or `>`, the text may not hold `>`.
  const url = t.href.replace(/[|<> ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return text === escapeMrkdwn(t.href) ? `<${url}>` : `<${url}|${text.replace(/\|/g, '¦')}>`;
}

function codeBlock(code: string): string {
  return `\`\`\`\n${escapeMrkdwn(code).replace(/```/g, 'ˋˋˋ')}\n\`\`\``;
}

/** marked keeps entities as written; the sanitiser wrote `&lt;` for a removed tag. Decoded, then escaped once. */
function decodeEntities(text: string): string {
  return text.replace(
    /&(lt|gt|amp|quot|#39);/g,
    (_m, e: string) => ({ lt: '<', gt: '>', amp: '&', quot: '"', '#39': "'" })[e] ?? _m,
  );
}
