import { Lexer, type MarkedToken, type Token, type Tokens } from 'marked';

/**
 * Makes model-written Markdown safe to post: the model read untrusted text, so anything that
 * fetches or links to a host we did not vouch for may be prompt-injected exfiltration.
 * Rebuilt from marked's tokens; only the offending tokens change, the rest keeps its raw text.
 */
export interface SanitizeOptions {
  /** Hosts links may point to (exact, case-insensitive; http/https only). */
  allowedHosts: Set<string>;
  /**
   * Keep `@user`, `@org/team`, `#1`, `owner/repo#7` and `GH-1` as written (config
   * writeBack.allowMentions). Off by default: each is broken by an invisible U+200B after its
   * `@`, `#` or `GH-`, so it reads the same but notifies no one and references no issue.
   */
  allowMentions?: boolean;
}

/** What the passes below check against. */
interface Policy {
  hosts: Set<string>;
  mentions: boolean;
}

// Each pass fixes one nesting level (an escaped HTML block may reveal an image inside it).
const MAX_PASSES = 6;

export function sanitizeMarkdown(md: string, opts: SanitizeOptions): string {
  const hosts = new Set([...opts.allowedHosts].map((h) => h.toLowerCase()).filter(Boolean));
  const allowed: Policy = { hosts, mentions: opts.allowMentions === true };
  // Newline-terminated, as it will sit in the comment (marked reads a fence on an unterminated
  // last line differently); tabs expanded, as marked and GitHub disagree on them in indentation.
  let text = expandTabs(md.endsWith('\n') ? md : `${md}\n`);
  for (let pass = 0; pass <= MAX_PASSES; pass++) {
    text = closeOpenFence(text);
    const tokens = lex(text);
    if (tokens.every((t) => isClean(t, allowed))) return md.endsWith('\n') ? text : text.replace(/\n$/, '');
    text = rebuildBlocks(tokens, allowed);
  }
  // Never converged: show the original as an inert code block rather than guess.
  return fenced(md, 'text');
}

/** Hostnames of http(s) URLs (and bare www. names) mentioned anywhere in a text. */
export function hostsIn(text: string): Set<string> {
  const hosts = new Set<string>();
  for (const m of text.matchAll(/\bhttps?:\/\/[^\s<>"'`)\]}|\\]+|\bwww\.[^\s<>"'`)\]}|\\]+/gi)) {
    let match = m[0];
    while (/[.,;:!?*_~]$/.test(match)) match = match.slice(0, -1);
    const host = hostOf(/^www\./i.test(match) ? `http://${match}` : match);
    if (host) hosts.add(host);
  }
  return hosts;
}

/** Hostnames of the links (not images, not code) in Markdown. */
export function linkedHosts(md: string): Set<string> {
  const hosts = new Set<string>();
  const visit = (t: Token): void => {
    if (t.type === 'link' || t.type === 'def') hosts.add(hostOf(String(t.href)) ?? '');
    childrenOf(t).forEach(visit);
  };
  lex(md).forEach(visit);
  hosts.delete('');
  return hosts;
}

/** An inline code span holding `s` verbatim, whatever backticks it contains. */
export function codeSpan(s: string): string {
  const flat = s.replace(/\s+/g, ' ');
  const fence = '`'.repeat(longestBacktickRun(flat) + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/** Closes a fenced code block left open at the end (so text after it is not swallowed). */
export function closeOpenFence(md: string): string {
  // Lexed with text after it, as it will be in the comment (marked reads a fence on the very last
  // line as paragraph text, GitHub as an open block). If that text ends up as code, the fence is open.
  const last = lex(`${md}\n\nx`).at(-1);
  const open = last?.type === 'code' ? /^ {0,3}(`{3,}|~{3,})/.exec(last.raw)?.[1] : undefined;
  return open ? `${md}${md.endsWith('\n') ? '' : '\n'}${open}\n` : md;
}

function lex(md: string): Token[] {
  return Lexer.lex(md, { gfm: true });
}

/** The lowercase host of an http(s) URL; null for another scheme or what is not a URL. */
export function hostOf(href: string): string | null {
  try {
    const url = new URL(href);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname.toLowerCase() : null;
  } catch {
    return null;
  }
}

function isAllowed(href: string, allowed: Policy): boolean {
  return allowed.hosts.has(hostOf(href) ?? '');
}

function childrenOf(token: Token): Token[] {
  const t = token as MarkedToken;
  const kids: Token[] = 'tokens' in t && Array.isArray(t.tokens) ? [...t.tokens] : [];
  if (t.type === 'list') kids.push(...t.items);
  if (t.type === 'table') for (const cell of [...t.header, ...t.rows.flat()]) kids.push(...cell.tokens);
  return kids;
}

function isClean(token: Token, allowed: Policy, inLink = false): boolean {
  const t = token as MarkedToken;
  switch (t.type) {
    case 'image':
    case 'html':
      return false;
    case 'code':
      // marked and GitHub disagree on where indented code may start (e.g. after a quote line).
      return t.codeBlockStyle !== 'indented';
    case 'codespan':
      // One spanning lines can hide a block boundary that only one of the parsers sees.
      return !t.raw.includes('\n');
    case 'def':
      return isAllowed(t.href, allowed);
    case 'escape':
      return t.text !== '<' && (allowed.mentions || !REFERENCE_SIGN.test(t.text));
    case 'link':
      // A bare URL's extent is where marked and GitHub disagree most: only <url> form is kept.
      if (!t.raw.startsWith('[')) return t.raw.startsWith('<') && isAllowed(t.href, allowed);
      return isAllowed(t.href, allowed) && t.tokens.every((c) => isClean(c, allowed, true));
    case 'text':
      // marked unescapes brackets in link text, so there they are not a sign of anything.
      if (!t.tokens && (inLink ? RISKY_LINK_TEXT : RISKY_TEXT).test(t.raw)) return false;
      if (!t.tokens && !allowed.mentions && hasReference(t.raw)) return false;
      break;
  }
  return childrenOf(t).every((c) => isClean(c, allowed, inLink));
}

function rebuild(tokens: Token[], allowed: Policy): string {
  return tokens.map((t) => rebuildToken(t, allowed)).join('');
}

/** Blocks, one after another: marked drops the newline after some (an `hr`), so put it back. */
function rebuildBlocks(tokens: Token[], allowed: Policy): string {
  const parts: string[] = [];
  for (const t of tokens) {
    const next = rebuildToken(t, allowed);
    const prev = parts.at(-1);
    if (prev && next && !prev.endsWith('\n') && !next.startsWith('\n')) parts.push('\n');
    if (next) parts.push(next);
  }
  return parts.join('');
}

function rebuildToken(token: Token, allowed: Policy): string {
  if (isClean(token, allowed)) return token.raw;
  const t = token as MarkedToken;
  switch (t.type) {
    case 'image':
      return `\\[image removed: ${escapeInline(t.text)}\\]`;
    case 'html':
      // &lt; rather than \< so that no `<!-- lestrade:` marker text survives in the raw body.
      return t.raw.replace(/</g, '&lt;');
    case 'def':
      return '';
    case 'code':
      return fenced(t.text) + trailingSpace(t.raw);
    case 'codespan':
      return codeSpan(t.text);
    case 'escape':
      return t.text === '<' ? '&lt;' : `${t.text}${BREAK}`;
    case 'text':
      if (t.tokens) return splice(t.raw, t.tokens, allowed);
      return allowed.mentions ? escapeText(t.raw) : breakReferences(escapeText(t.raw));
    case 'link':
      return rebuildLink(t, allowed);
    case 'blockquote':
      return quote(rebuildBlocks(t.tokens, allowed), t.raw);
    case 'list':
      return splice(t.raw, t.items, allowed);
    case 'list_item':
      return rebuildItem(t, allowed);
    case 'table':
      return rebuildTable(t, allowed);
    default:
      return splice(t.raw, childrenOf(t), allowed);
  }
}

/** Substitutes rebuilt children into the parent's raw text, keeping delimiters and markers. */
function splice(raw: string, children: Token[], allowed: Policy): string {
  let out = '';
  let at = 0;
  for (const child of children) {
    const i = raw.indexOf(child.raw, at);
    if (i < 0) return rebuild(children, allowed);
    out += raw.slice(at, i) + rebuildToken(child, allowed);
    at = i + child.raw.length;
  }
  return out + raw.slice(at);
}

function rebuildLink(t: Tokens.Link, allowed: Policy): string {
  const bracketed = t.raw.startsWith('[');
  // marked gives link text unescaped (raw "[x]" for "\\[x\\]"), so rebuild rather than splice.
  const dest = t.href.replace(/[\s()<>\\`]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  if (isAllowed(t.href, allowed)) return bracketed ? `[${rebuild(t.tokens, allowed)}](${dest})` : `<${dest}>`;
  if (!bracketed || t.text.trim() === '' || t.text === t.href) return codeSpan(bracketed ? t.href : t.text);
  return `${rebuild(t.tokens, allowed)} (${codeSpan(t.href)})`;
}

/** A task item's checkbox; none for an item that is no task. */
function taskBox(item: Tokens.ListItem): string {
  if (!item.task) return '';
  return item.checked ? '[x] ' : '[ ] ';
}

function rebuildItem(item: Tokens.ListItem, allowed: Policy): string {
  const bullet = /^[ \t]*(?:[*+-]|\d{1,9}[.)])/.exec(item.raw)?.[0] ?? '-';
  const spaces = /^[ \t]*/.exec(item.raw.slice(bullet.length))?.[0].length ?? 0;
  const gap = spaces === 0 || spaces > 4 ? 1 : spaces;
  const checkbox = taskBox(item);
  const pad = ' '.repeat(bullet.length + gap);
  const body = rebuildBlocks(item.tokens, allowed)
    .trimEnd()
    .replace(/\n(?=[^\n])/g, `\n${pad}`);
  return `${bullet}${' '.repeat(gap)}${checkbox}${body}${trailingSpace(item.raw)}`;
}

/** The delimiter row's cell for each column alignment (`---` for a column with none). */
const ALIGN_MARKS: Record<string, string> = { left: ':--', right: '--:', center: ':-:' };

function rebuildTable(t: Tokens.Table, allowed: Policy): string {
  const cell = (c: Tokens.TableCell): string => rebuild(c.tokens, allowed).replace(/\|/g, '\\|');
  const row = (cells: Tokens.TableCell[]): string => `| ${cells.map(cell).join(' | ')} |`;
  const align = t.align.map((a) => ALIGN_MARKS[a ?? ''] ?? '---');
  return [row(t.header), `| ${align.join(' | ')} |`, ...t.rows.map(row)].join('\n') + trailingSpace(t.raw);
}

function quote(inner: string, raw: string): string {
  const lines = inner.trimEnd().split('\n');
  return lines.map((line) => (line ? `> ${line}` : '>')).join('\n') + trailingSpace(raw);
}

function trailingSpace(raw: string): string {
  return raw.slice(raw.trimEnd().length);
}

/**
 * marked and GitHub's parser disagree at the edges (e.g. marked reads the backtick in "~~`" as
 * text): characters marked saw as plain text are escaped so GitHub cannot build a code span,
 * link, tag or autolink out of them either.
 */
const RISKY_TEXT = /[<`[\]]|:\/\/|\bwww\./i;
const RISKY_LINK_TEXT = /[<`]|:\/\/|\bwww\./i;

/**
 * GitHub finds mentions and issue references in the rendered text, after entities and escapes
 * are resolved, and never inside code: `@name`, `@org/team`, `#12`, `owner/repo#12`, `GH-12`.
 */
const REFERENCE_SIGN = /^[@#]$/;
const BREAK = '\u200b';
const MENTION = /(^|[^A-Za-z0-9])@(?=[A-Za-z0-9])/g;
const ISSUE_REF = /(?<!&)#(?=\d)/g;
const GH_REF = /\b(GH-)(?=\d)/gi;
/** `&#64;`, `&#x40;`, `&commat;` (and the same for `#`) render as the sign itself. */
const SIGN_ENTITY = /&(?:#0*64|#x0*40|commat);|&(?:#0*35|#x0*23|num);/gi;

function hasReference(raw: string): boolean {
  return breakReferences(raw) !== raw;
}

function breakReferences(raw: string): string {
  return raw
    .replace(SIGN_ENTITY, (e) => (/64|40|commat/i.test(e) ? '@' : '#'))
    .replace(MENTION, `$1@${BREAK}`)
    .replace(ISSUE_REF, `#${BREAK}`)
    .replace(GH_REF, `$1${BREAK}`);
}

function escapeText(raw: string): string {
  return raw
    .replace(/[`[\]]/g, '\\$&')
    .replace(/</g, '&lt;')
    .replace(/:\/\//g, ':\\/\\/')
    .replace(/\b(www)\./gi, '$1\\.');
}

function escapeInline(s: string): string {
  return s
    .replace(/\s+/g, ' ')
    .replace(/[\\`*_[\]!|~#]/g, '\\$&')
    .replace(/</g, '&lt;');
}

function expandTabs(md: string): string {
  if (!md.includes('\t')) return md;
  const expand = (line: string): string => {
    let out = '';
    for (const c of line) out += c === '\t' ? ' '.repeat(4 - (out.length % 4)) : c;
    return out;
  };
  return md
    .split('\n')
    .map((line) => (line.includes('\t') ? expand(line) : line))
    .join('\n');
}

function longestBacktickRun(s: string): number {
  return (s.match(/`+/g) ?? []).reduce((max, run) => Math.max(max, run.length), 0);
}

function fenced(code: string, lang = ''): string {
  const fence = '`'.repeat(Math.max(2, longestBacktickRun(code)) + 1);
  return `${fence}${lang}\n${code}\n${fence}`;
}
