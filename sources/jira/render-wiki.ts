import { Lexer, type MarkedToken, type Token, type Tokens } from 'marked';
import { toMarkdown, type CommentDoc } from '../../src/render/compose-comment.js';
import { decodeEntities } from './render-adf.js';

/**
 * The comment as Jira wiki markup (Jira Data Center, REST API v2), rendered from marked's
 * tokens. Model text is escaped so that it cannot produce markup of its own: no images
 * (`!url!`), links or mentions (`[...]`), macros (`{...}`), tables (`|`), headings or lists.
 */
export function toWikiMarkup(doc: CommentDoc, cutNote?: string): string {
  return blocks(Lexer.lex(toMarkdown(doc, cutNote), { gfm: true }), 'top').trim();
}

/** Where a block sits: block macros ({quote}, {code}) do not nest in a quote or a list item. */
type Where = 'top' | 'quote' | 'list';

function blocks(tokens: Token[], where: Where): string {
  return tokens
    .map((t) => block(t, where))
    .filter((s) => s !== '')
    .join('\n\n');
}

function block(token: Token, where: Where): string {
  const t = token as MarkedToken;
  switch (t.type) {
    case 'heading':
      return `h${t.depth}. ${inline(t.tokens)}`;
    case 'paragraph':
      return inline(t.tokens);
    case 'text':
      return t.tokens ? inline(t.tokens) : text(t.text);
    case 'code':
      // In a list item a {code} block would end the list, and might not be read as one.
      return where === 'list' ? codeLines(t.text) : codeBlock(t.text, t.lang);
    case 'blockquote':
      return where === 'top' ? `{quote}\n${blocks(t.tokens, 'quote')}\n{quote}` : blocks(t.tokens, where);
    case 'list':
      return list(t, '');
    case 'table':
      return table(t);
    case 'hr':
      return '----';
    case 'html':
      return text(t.raw.trim());
    case 'space':
    case 'def':
      return '';
    default:
      return 'tokens' in t && Array.isArray(t.tokens) ? inline(t.tokens) : text(t.raw);
  }
}

function list(t: Tokens.List, outer: string): string {
  const marker = outer + (t.ordered ? '#' : '*');
  return t.items.map((item) => listItem(item, marker)).join('\n');
}

/** A task item's checkbox, escaped (wiki would read `[x]` as a link); none for an item that is no task. */
function taskBox(item: Tokens.ListItem): string {
  if (!item.task) return '';
  return item.checked ? '\\[x\\] ' : '\\[ \\] ';
}

function listItem(item: Tokens.ListItem, marker: string): string {
  const checkbox = taskBox(item);
  const lines: string[] = [];
  const body: string[] = [];
  for (const child of item.tokens) {
    if (child.type === 'list') lines.push(list(child as Tokens.List, marker));
    else if (child.type !== 'space') body.push(block(child, 'list'));
  }
  // Further paragraphs of the item stay in it as forced line breaks.
  return [`${marker} ${checkbox}${body.join(' \\\\ ')}`, ...lines].join('\n');
}

function table(t: Tokens.Table): string {
  const cell = (c: Tokens.TableCell): string => inline(c.tokens) || ' ';
  const header = `||${t.header.map(cell).join('||')}||`;
  return [header, ...t.rows.map((row) => `|${row.map(cell).join('|')}|`)].join('\n');
}

/**
 * Adjacent plain text and backslash escapes are escaped as one string, so that a URL the
 * sanitizer split with escapes (`https:\/\/…`) is still seen whole and kept from auto-linking.
 */
function inline(tokens: Token[]): string {
  let out = '';
  let plain = '';
  for (const t of tokens) {
    if (t.type === 'escape' || (t.type === 'text' && !t.tokens)) {
      plain += t.type === 'escape' ? String(t.text) : decodeEntities(String(t.text));
      continue;
    }
    out += escapeWiki(plain) + inlineToken(t);
    plain = '';
  }
  return out + escapeWiki(plain);
}

function inlineToken(token: Token): string {
  const t = token as MarkedToken;
  switch (t.type) {
    case 'strong':
      return `*${inline(t.tokens)}*`;
    case 'em':
      return `_${inline(t.tokens)}_`;
    case 'del':
      return `-${inline(t.tokens)}-`;
    case 'codespan':
      return t.text.trim() ? `{{${escapeWiki(t.text)}}}` : t.text;
    case 'link':
      return link(t);
    case 'image':
      return text(t.text);
    case 'br':
      return ' \\\\ ';
    case 'escape':
      return escapeWiki(t.text);
    case 'text':
      return t.tokens ? inline(t.tokens) : text(t.text);
    default:
      return text(t.raw);
  }
}

function link(t: Tokens.Link): string {
  const href = t.href.replace(/[\s|[\]{}!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  const label = inline(t.tokens);
  return t.text === t.href || !label ? `[${href}]` : `[${label}|${href}]`;
}

/** Plain model text: entities decoded (wiki has no use for them), then escaped. */
function text(s: string): string {
  return escapeWiki(decodeEntities(s));
}

// Always special: images, links/mentions, macros, table cells.
const ALWAYS = new Set(['!', '[', ']', '{', '}', '|']);
// Special only where they can open markup: not after a letter or digit (Jira ignores intraword).
const OPENERS = new Set(['*', '_', '-', '+', '^', '~', '?', '#']);

/**
 * Escapes wiki markup with a backslash, as Jira does. A backslash itself becomes `&#92;`
 * (`\\` is a line break in wiki markup); `://` becomes `&#58;//` so Jira does not turn a URL
 * the sanitizer deliberately left unlinked into a link; `h1.`/`bq.` at a line start get `&#46;`.
 */
export function escapeWiki(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] ?? '';
    const prev = s[i - 1] ?? ' ';
    if (c === '\\') out += '&#92;';
    else if (ALWAYS.has(c) || (OPENERS.has(c) && !/[\p{L}\p{N}]/u.test(prev))) out += `\\${c}`;
    else out += c;
  }
  return out.replace(/:\/\//g, '&#58;//').replace(/(^|\n)([ \t]*)(h[1-6]|bq)\./g, '$1$2$3&#46;');
}

// Languages Jira's {code} macro knows; anything else would render an error panel.
const LANGS = new Set([
  'actionscript',
  'ada',
  'applescript',
  'bash',
  'c',
  'c#',
  'c++',
  'cpp',
  'css',
  'erlang',
  'go',
  'groovy',
  'haskell',
  'html',
  'java',
  'javascript',
  'json',
  'lua',
  'objc',
  'perl',
  'php',
  'python',
  'r',
  'ruby',
  'scala',
  'sql',
  'swift',
  'visualbasic',
  'xml',
  'yaml',
]);
const ALIASES: Record<string, string> = {
  sh: 'bash',
  shell: 'bash',
  console: 'bash',
  zsh: 'bash',
  js: 'javascript',
  ts: 'javascript',
  typescript: 'javascript',
  py: 'python',
  yml: 'yaml',
  golang: 'go',
  rb: 'ruby',
};

function codeLines(code: string): string {
  return code
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => `{{${escapeWiki(line)}}}`)
    .join(' \\\\ ');
}

/**
 * Code is literal inside {code}/{noformat}, but the closing tag is recognised anywhere: content
 * holding `{code` goes into {noformat}, and a `{noformat}` in it is broken with a zero-width space.
 */
function codeBlock(code: string, lang: string | undefined): string {
  const word = (lang ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  const jiraLang = ALIASES[word] ?? (LANGS.has(word) ? word : '');
  if (jiraLang && !/\{code/i.test(code)) return `{code:${jiraLang}}\n${code}\n{code}`;
  return `{noformat}\n${code.replace(/\{(noformat)/gi, '{\u200b$1')}\n{noformat}`;
}
