import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { TokenCounter } from './token-counter.js';

/**
 * The last resort when a summary is not enough: cuts tool results to one common cap, the largest
 * first, so that together they fit `allowance` tokens; smaller results stay whole. Only the data
 * of a result is cut (its JSON stays valid), with a note saying so. Returns how many were cut.
 */
export function fairTruncate(messages: ChatCompletionMessageParam[], counter: TokenCounter, allowance: number): number {
  const tools = messages.flatMap((m, i) =>
    m.role === 'tool' && typeof m.content === 'string' ? [{ i, size: counter.count(m.content) }] : [],
  );
  const total = tools.reduce((s, t) => s + t.size, 0);
  if (total <= allowance) return 0;
  const cap = largestCap(
    tools.map((t) => t.size),
    Math.max(0, allowance),
  );
  let cut = 0;
  for (const t of tools) {
    if (t.size <= cap) continue;
    const m = messages[t.i] as { content: string };
    m.content = cutResult(m.content, Math.max(16, cap - 60), t.size, counter);
    cut += 1;
  }
  return cut;
}

/** The largest cap C with sum(min(size, C)) <= allowance. */
function largestCap(sizes: number[], allowance: number): number {
  let lo = 0;
  let hi = Math.max(...sizes);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (sizes.reduce((s, x) => s + Math.min(x, mid), 0) <= allowance) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function cutResult(content: string, tokens: number, size: number, counter: TokenCounter): string {
  const note = `…[cut to fit the context window: about ${tokens} of ${size} tokens kept]`;
  try {
    const result = JSON.parse(content) as Record<string, unknown>;
    if (typeof result.data === 'string')
      return JSON.stringify({ ...result, data: `${counter.head(result.data, tokens)}\n${note}`, truncated: true });
  } catch {
    // Not a result object: cut the text itself.
  }
  return `${counter.head(content, tokens)}\n${note}`;
}
