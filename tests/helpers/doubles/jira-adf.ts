/**
 * A light check of Atlassian Document Format, the shape Jira Cloud v3 demands of comment bodies
 * (the spec types `body` as anything and says ADF only in prose). It checks structure, not every
 * attribute: a doc of version 1 at the top, known node and mark types, non-empty text in text nodes.
 */
const NODES = new Set([
  'paragraph',
  'text',
  'heading',
  'bulletList',
  'orderedList',
  'listItem',
  'codeBlock',
  'blockquote',
  'rule',
  'hardBreak',
  'mention',
  'emoji',
  'table',
  'tableRow',
  'tableHeader',
  'tableCell',
  'panel',
  'inlineCard',
  'blockCard',
  'mediaSingle',
  'mediaGroup',
  'media',
  'status',
  'date',
  'expand',
  'nestedExpand',
  'taskList',
  'taskItem',
  'decisionList',
  'decisionItem',
  'layoutSection',
  'layoutColumn',
]);
const MARKS = new Set([
  'strong',
  'em',
  'code',
  'link',
  'strike',
  'underline',
  'subsup',
  'textColor',
  'backgroundColor',
  'alignment',
  'indentation',
  'border',
  'breakout',
]);

type Node = { type?: unknown; text?: unknown; content?: unknown; marks?: unknown };

function nodeError(n: unknown, path: string): string | undefined {
  if (!n || typeof n !== 'object' || Array.isArray(n)) return `${path} is not an ADF node`;
  const { type, text, content, marks } = n as Node;
  if (typeof type !== 'string' || !NODES.has(type)) return `${path} has unknown node type ${JSON.stringify(type)}`;
  if (type === 'text' && (typeof text !== 'string' || text === '')) return `${path} is a text node without text`;
  if (marks !== undefined) {
    if (!Array.isArray(marks)) return `${path}.marks is not an array`;
    const bad = marks.find((m: unknown) => !MARKS.has(String((m as { type?: unknown } | null)?.type)));
    if (bad !== undefined) return `${path} has unknown mark ${JSON.stringify(bad)}`;
  }
  if (content === undefined) return undefined;
  if (!Array.isArray(content)) return `${path}.content is not an array`;
  for (const [i, child] of content.entries()) {
    const e = nodeError(child, `${path}.content[${i}]`);
    if (e) return e;
  }
  return undefined;
}

/** Why `doc` is not an ADF document, or undefined when it is one. */
export function adfError(doc: unknown): string | undefined {
  const d = doc as { type?: unknown; version?: unknown; content?: unknown } | null;
  if (!d || typeof d !== 'object' || d.type !== 'doc' || d.version !== 1 || !Array.isArray(d.content)) {
    return 'not a document: expected {type: "doc", version: 1, content: [...]}';
  }
  for (const [i, child] of d.content.entries()) {
    const e = nodeError(child, `content[${i}]`);
    if (e) return e;
  }
  return undefined;
}
