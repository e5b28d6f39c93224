/**
 * `/lestrade approve <call>` and `/lestrade deny <call> [reason…]` in a ticket comment (GitHub, Jira): each
 * line that starts with one of them, outside code blocks, quotes, HTML comments and `<details>` blocks, decides
 * one pending call. Pure: who
 * wrote the comment, and whether they may decide, is the source's business.
 */

/** One decision read from a comment, before the source adds who made it. */
export interface ApprovalCommand {
  toolCallId: string;
  approved: boolean;
  /** A denial's reason (the rest of its line), sent to the model. */
  feedback?: string;
}

export interface ParsedApprovals {
  commands: ApprovalCommand[];
  /** Command lines not taken, each with why (logged; never answered on the ticket). */
  refused: string[];
}

/** How the comment was written: GitHub Markdown, or Jira's wiki markup (and ADF already made plain text). */
export type CommentDialect = 'markdown' | 'jira';

export const APPROVE_COMMAND = '/lestrade approve';
export const DENY_COMMAND = '/lestrade deny';
/** The API's limits on a call id and a denial's reason (POST /api/investigations/:id/approvals). */
const MAX_CALL_ID = 256;
const MAX_FEEDBACK = 4000;
/** A call id as a model's API sends it: no spaces, no control characters. */
const CALL_ID = /^[\w.:@/+=-]+$/;

/** The approval commands of a comment: none when it has no line starting with one. */
export function parseApprovalCommands(text: string, dialect: CommentDialect): ParsedApprovals {
  const out: ParsedApprovals = { commands: [], refused: [] };
  const seen = new Set<string>();
  for (const line of commandLines(text, dialect)) {
    const parsed = parseLine(line);
    if (!parsed) continue;
    if ('refused' in parsed) out.refused.push(parsed.refused);
    else if (seen.has(parsed.toolCallId))
      out.refused.push(`call ${parsed.toolCallId} is named twice: only its first line counts`);
    else {
      seen.add(parsed.toolCallId);
      out.commands.push(parsed);
    }
  }
  return out;
}

/** Whether a comment has at least one line starting with an approval command (outside code and quotes). */
export function hasApprovalCommand(text: string, dialect: CommentDialect): boolean {
  return commandLines(text, dialect).some((line) => commandOf(line) !== null);
}

/** The lines that may carry a command: not in a code block, not quoted, not indented as code. */
export function commandLines(text: string, dialect: CommentDialect): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  return dialect === 'markdown' ? markdownLines(lines) : jiraLines(lines);
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

function markdownLines(lines: string[]): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  const html = { comment: false, details: 0 };
  let quoted = false;
  for (const raw of lines) {
    const open = FENCE.exec(raw)?.[1];
    if (fence !== null) {
      // A fence closes with at least as many of the same character, and nothing after them.
      if (open && open[0] === fence[0] && open.length >= fence.length && raw.trim() === open) fence = null;
      continue;
    }
    if (open && !html.comment) {
      fence = open;
      continue;
    }
    const line = visibleHtml(raw, html);
    if (line === null) continue;
    // `>` is a quote (of someone else's command), and so is every line after it up to a blank line
    // (Markdown's lazy continuation: GitHub shows such a line inside the quote).
    if (/^ {0,3}>/.test(line)) quoted = true;
    else if (line.trim() === '') quoted = false;
    // Four spaces or a tab is an indented code block.
    if (quoted || /^( {4}|\t)/.test(line)) continue;
    out.push(line.trim());
  }
  return out;
}

/**
 * A line without its HTML comments (`<!-- … -->`, also across lines), or null when it is inside a `<details>`
 * block (a collapsed section, nested ones too, the lines that open and close it included): text GitHub hides
 * or folds away is not a command.
 */
function visibleHtml(line: string, html: { comment: boolean; details: number }): string | null {
  let text = '';
  let rest = line;
  while (rest !== '') {
    if (html.comment) {
      const end = rest.indexOf('-->');
      html.comment = end < 0;
      rest = end < 0 ? '' : rest.slice(end + 3);
    } else {
      const start = rest.indexOf('<!--');
      text += start < 0 ? rest : rest.slice(0, start);
      html.comment = start >= 0;
      rest = start < 0 ? '' : rest.slice(start + 4);
    }
  }
  const before = html.details;
  for (const tag of text.matchAll(/<(\/?)details\b[^>]*>/gi))
    html.details = Math.max(0, html.details + (tag[1] ? -1 : 1));
  return before > 0 || html.details > 0 || /<\/details\b/i.test(text) ? null : text;
}

/** Jira wiki markup: {code}, {noformat} and {quote} blocks, `bq.` lines; `>` for ADF's quotes made plain. */
function jiraLines(lines: string[]): string[] {
  const out: string[] = [];
  let block: string | null = null;
  for (const line of lines) {
    const trimmed = line.trim();
    const macros = [...trimmed.matchAll(/\{(code|noformat|quote)(?::[^}]*)?\}/gi)].map((m) => m[1]!.toLowerCase());
    if (block !== null) {
      // A block closes with its own macro; anything on that line stays inside it.
      if (macros.includes(block)) block = null;
      continue;
    }
    if (macros.length > 0) {
      // Opened (and maybe closed) on this line: the line is block text; a line left open swallows what follows.
      if (macros.filter((m) => m === macros[0]).length % 2 === 1) block = macros[0]!;
      continue;
    }
    if (/^(bq\.|>)/i.test(trimmed)) continue;
    out.push(trimmed);
  }
  return out;
}

function commandOf(line: string): { approved: boolean; rest: string } | null {
  for (const [command, approved] of [
    [APPROVE_COMMAND, true],
    [DENY_COMMAND, false],
  ] as const) {
    const head = line.slice(0, command.length).toLowerCase();
    const next = line.charAt(command.length);
    if (head === command && (next === '' || /\s/.test(next)))
      return { approved, rest: line.slice(command.length).trim() };
  }
  return null;
}

function parseLine(line: string): ApprovalCommand | { refused: string } | null {
  const command = commandOf(line);
  if (!command) return null;
  const name = command.approved ? APPROVE_COMMAND : DENY_COMMAND;
  const [first = '', ...more] = command.rest.split(/\s+/).filter(Boolean);
  const id = unwrap(first);
  if (!id) return { refused: `${name} names no call: write ${name} <call>` };
  if (id.toLowerCase() === 'all')
    return { refused: `${name} all is not taken: name each call on its own line (the pending calls may have changed)` };
  if (id.length > MAX_CALL_ID || !CALL_ID.test(id)) return { refused: `${name}: "${clipped(id)}" is not a call id` };
  if (command.approved) {
    // Approving runs a tool: a line that says more than one call is not guessed at.
    if (more.length > 0) return { refused: `${APPROVE_COMMAND} takes one call per line: "${clipped(line)}"` };
    return { toolCallId: id, approved: true };
  }
  const feedback = more.join(' ').slice(0, MAX_FEEDBACK);
  return { toolCallId: id, approved: false, ...(feedback ? { feedback } : {}) };
}

/** A call id as people paste it: in `backticks` (Markdown) or {{braces}} (Jira's monospace). */
function unwrap(token: string): string {
  const m = /^`+([^`]*)`+$/.exec(token) ?? /^\{\{(.*)\}\}$/.exec(token);
  return m ? m[1]! : token;
}

function clipped(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
