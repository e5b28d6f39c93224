import { Lexer, type Token, type Tokens } from 'marked';
import { terminalSafe } from './terminal-safe.js';

export { terminalSafe };

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  underline(s: string): string;
  code(s: string): string;
}

const ESC = '\u001b';
const wrap = (open: number, close: number) => (s: string) => `${ESC}[${open}m${s}${ESC}[${close}m`;
export const COLOUR: Style = { bold: wrap(1, 22), dim: wrap(2, 22), underline: wrap(4, 24), code: wrap(36, 39) };
export const PLAIN: Style = { bold: (s) => s, dim: (s) => s, underline: (s) => s, code: (s) => s };

/** Markdown for a terminal: headings bold, lists bulleted, code indented, links as "text (url)". */
export function renderMarkdown(markdown: string, style: Style): string {
  const tokens = new Lexer().lex(terminalSafe(markdown));
  return `${blocks(tokens, style, '')
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

function blocks(tokens: Token[], style: Style, indent: string): string[] {
  const out: string[] = [];
  for (const t of tokens) {
    const text = block(t, style, indent);
    if (text !== null) out.push(text);
  }
  return out;
}

function block(t: Token, style: Style, indent: string): string | null {
  switch (t.type) {
    case 'heading':
      return `${indent}${style.bold(style.underline(inline((t as Tokens.Heading).tokens, style)))}\n`;
    case 'paragraph':
      return `${indent}${inline((t as Tokens.Paragraph).tokens, style)}\n`;
    case 'text':
      return `${indent}${(t as Tokens.Text).tokens ? inline((t as Tokens.Text).tokens!, style) : (t as Tokens.Text).text}`;
    case 'code':
      return `${(t as Tokens.Code).text
        .split('\n')
        .map((l) => `${indent}    ${style.code(l)}`)
        .join('\n')}\n`;
    case 'blockquote':
      return blocks((t as Tokens.Blockquote).tokens, style, `${indent}│ `).join('\n');
    case 'list':
      return `${list(t as Tokens.List, style, indent)}\n`;
    case 'hr':
      return `${indent}${style.dim('─'.repeat(40))}\n`;
    case 'table':
      return `${table(t as Tokens.Table, style, indent)}\n`;
    case 'space':
      return null;
    default:
      return `${indent}${t.raw.trimEnd()}\n`;
  }
}

function list(t: Tokens.List, style: Style, indent: string): string {
  const start = typeof t.start === 'number' ? t.start : 1;
  return t.items
    .map((item, i) => {
      const bullet = t.ordered ? `${start + i}. ` : '• ';
      const body = blocks(item.tokens, style, `${indent}${' '.repeat(bullet.length)}`)
        .join('\n')
        .replace(/\n+$/, '');
      return `${indent}${bullet}${body.slice(indent.length + bullet.length)}`;
    })
    .join('\n');
}

function table(t: Tokens.Table, style: Style, indent: string): string {
  const head = t.header.map((c) => inline(c.tokens, style));
  const rows = t.rows.map((r) => r.map((c) => inline(c.tokens, style)));
  return [`${indent}${style.bold(head.join(' │ '))}`, ...rows.map((r) => `${indent}${r.join(' │ ')}`)].join('\n');
}

function inline(tokens: Token[], style: Style): string {
  return tokens
    .map((t) => {
      switch (t.type) {
        case 'strong':
          return style.bold(inline((t as Tokens.Strong).tokens, style));
        case 'em':
          return style.underline(inline((t as Tokens.Em).tokens, style));
        case 'codespan':
          return style.code((t as Tokens.Codespan).text);
        case 'link': {
          const l = t as Tokens.Link;
          const text = inline(l.tokens, style);
          return text === l.href ? style.underline(l.href) : `${text} (${style.underline(l.href)})`;
        }
        case 'br':
          return '\n';
        case 'text':
          return (t as Tokens.Text).tokens
            ? inline((t as Tokens.Text).tokens!, style)
            : unescape((t as Tokens.Text).text);
        case 'escape':
          return (t as Tokens.Escape).text;
        default:
          return unescape(t.raw);
      }
    })
    .join('');
}

function unescape(s: string): string {
  return s
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");
}
