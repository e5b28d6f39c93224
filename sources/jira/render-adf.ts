import { markdownToAdf } from 'marklassian';
import { toMarkdown, type CommentDoc } from '../../src/render/compose-comment.js';

/** Atlassian Document Format, as far as we build and read it. */
export interface AdfDocument {
  version: 1;
  type: 'doc';
  content: unknown[];
}

type AdfNode = { type?: unknown; text?: unknown; attrs?: unknown; content?: unknown; marks?: unknown };

// marklassian only emits these from image syntax or raw `<adf>` blocks, neither of which the
// sanitized text can contain; dropped anyway, since they fetch URLs or notify people.
const FORBIDDEN = new Set([
  'media',
  'mediaSingle',
  'mediaGroup',
  'mediaInline',
  'inlineCard',
  'blockCard',
  'embedCard',
  'mention',
  'extension',
  'bodiedExtension',
  'inlineExtension',
]);

/** The comment as ADF (Jira Cloud, REST API v3), via marklassian. */
export function toAdf(doc: CommentDoc, cutNote?: string): AdfDocument {
  const md = toMarkdown(doc, cutNote);
  let content: unknown[];
  try {
    content = markdownToAdf(md).content;
  } catch {
    // marklassian throws on a malformed `<adf>` block; post the text plainly rather than fail.
    content = md.split(/\n{2,}/).map((p) => ({ type: 'paragraph', content: [{ type: 'text', text: p }] }));
  }
  return { version: 1, type: 'doc', content: content.flatMap(scrub) };
}

/**
 * marklassian copies text as written, so the `&lt;` the sanitizer puts in place of `<` would show
 * literally in Jira: decode entities in text that is not code (code shows as written, as on GitHub).
 */
function scrub(node: unknown): unknown[] {
  if (!isRecord(node)) return [];
  if (FORBIDDEN.has(String(node.type))) return [];
  const out: AdfNode = { ...node };
  if (node.type === 'text' && typeof node.text === 'string' && !hasCodeMark(node.marks))
    out.text = decodeEntities(node.text);
  if (Array.isArray(node.content)) out.content = node.content.flatMap(scrub);
  return [out];
}

function hasCodeMark(marks: unknown): boolean {
  return Array.isArray(marks) && marks.some((m) => isRecord(m) && m.type === 'code');
}

const NAMED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes numeric entities and the few named ones that matter for plain text. */
export function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]+);/gi, (whole, name: string) => {
    if (!name.startsWith('#')) return NAMED[name.toLowerCase()] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
  });
}

const MAX_DEPTH = 100;

/**
 * Plain text of an ADF document (a Jira Cloud description), for the prompt. Never throws:
 * a string is returned as is, anything that is not ADF gives ''.
 */
export function adfToPlainText(adf: unknown): string {
  if (typeof adf === 'string') return adf;
  const lines = nodeText(adf, 0)
    .split('\n')
    .map((line) => line.trimEnd());
  return lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function nodeText(node: unknown, depth: number): string {
  if (depth > MAX_DEPTH || node === null || typeof node !== 'object') return '';
  if (Array.isArray(node)) return node.map((n) => nodeText(n, depth + 1)).join('');
  const n = node as AdfNode;
  const attrs = isRecord(n.attrs) ? n.attrs : {};
  const kids = Array.isArray(n.content) ? n.content : [];
  const inner = (): string => kids.map((k) => nodeText(k, depth + 1)).join('');
  switch (n.type) {
    case 'text':
      return typeof n.text === 'string' ? n.text + linkSuffix(n.text, n.marks) : '';
    case 'hardBreak':
      return '\n';
    case 'mention':
    case 'emoji':
    case 'status':
      return str(attrs.text) || str(attrs.shortName);
    case 'inlineCard':
    case 'blockCard':
    case 'embedCard':
      return str(attrs.url);
    case 'rule':
      return '---\n\n';
    case 'paragraph':
    case 'heading':
    case 'codeBlock':
      return `${inner()}\n\n`;
    case 'blockquote':
      return `${prefixLines(inner().trim(), '> ')}\n\n`;
    case 'bulletList':
    case 'orderedList':
      return `${listText(n, kids, attrs, depth)}\n\n`;
    case 'tableRow':
      return (
        kids
          .map((cell) =>
            nodeText(cell, depth + 1)
              .trim()
              .replace(/\s*\n\s*/g, ' '),
          )
          .join(' | ') + '\n'
      );
    case 'table':
      return `${inner()}\n`;
    default:
      return inner();
  }
}

function listText(n: AdfNode, items: unknown[], attrs: Record<string, unknown>, depth: number): string {
  const start = typeof attrs.order === 'number' ? attrs.order : 1;
  return items
    .map((item, i) => {
      const marker = n.type === 'orderedList' ? `${start + i}. ` : '- ';
      const body = nodeText(item, depth + 1)
        .trim()
        .replace(/\n{2,}/g, '\n');
      return marker + body.replace(/\n/g, `\n${' '.repeat(marker.length)}`);
    })
    .join('\n');
}

function linkSuffix(text: string, marks: unknown): string {
  if (!Array.isArray(marks)) return '';
  const link: unknown = marks.find((m) => isRecord(m) && m.type === 'link');
  const href = isRecord(link) && isRecord(link.attrs) ? str(link.attrs.href) : '';
  return href && href !== text ? ` (${href})` : '';
}

function prefixLines(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
