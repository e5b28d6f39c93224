import { parseApprovalCommands, type ParsedApprovals } from '../common/approval-commands.js';
import { textOf } from './text-of.js';
import { parseFeedbackCommand, type FeedbackCommand } from '../common/feedback-commands.js';

const MAX_DEPTH = 100;

/**
 * The `/lestrade approve|deny` lines of a comment body: wiki markup as written (its {code}, {noformat}
 * and {quote} blocks left out by the parser), or ADF without its code blocks (quotes become `>` lines).
 */
export function approvalCommandsOf(body: unknown): ParsedApprovals {
  return parseApprovalCommands(textOf(typeof body === 'object' ? withoutCodeBlocks(body, 0) : body), 'jira');
}

/** A `/lestrade correct|partly|wrong` line of a comment body, read as approval lines are; null when none. */
export function feedbackCommandOf(body: unknown): FeedbackCommand | null {
  return parseFeedbackCommand(textOf(typeof body === 'object' ? withoutCodeBlocks(body, 0) : body), 'jira');
}

/** An ADF tree without its codeBlock nodes: what is shown as code is never a command. */
function withoutCodeBlocks(node: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH || node === null || typeof node !== 'object') return node;
  if (Array.isArray(node))
    return node
      .filter((n) => (n as { type?: unknown })?.type !== 'codeBlock')
      .map((n) => withoutCodeBlocks(n, depth + 1));
  const n = node as { content?: unknown };
  return Array.isArray(n.content) ? { ...n, content: withoutCodeBlocks(n.content, depth + 1) } : node;
}
