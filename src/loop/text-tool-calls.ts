/**
 * Tool calls a model wrote as text instead of the API's `tool_calls` (models served by Ollama, vLLM or llama.cpp
 * without a tool-call parser): Hermes/Qwen's `<tool_call>{"name": …, "arguments": …}</tool_call>`, a fenced JSON
 * block, or a bare JSON object (or array of them) that is the whole reply. A form is recognised only when it
 * names one of the offered tools, so an answer that quotes JSON is still an answer.
 */

/** One call read from the text: the tool's name and its arguments as JSON text, as the API would give them. */
export interface TextCall {
  name: string;
  arguments: string;
}

export type TextCalls =
  { kind: 'none' } | { kind: 'calls'; calls: TextCall[]; rest: string } | { kind: 'broken'; why: string };

const TAGGED = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;
const FENCED = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/;

/** The calls the text holds, in the order written; `none` when it holds no call of an offered tool. */
export function parseTextToolCalls(text: string | null | undefined, offered: ReadonlySet<string>): TextCalls {
  if (!text) return { kind: 'none' };
  const tagged = [...text.matchAll(TAGGED)];
  if (tagged.length) {
    const calls: TextCall[] = [];
    for (const [, body] of tagged) {
      const one = callsOf(body!, offered, true);
      if (one.kind === 'broken') return one;
      if (one.kind === 'calls') calls.push(...one.calls);
    }
    return calls.length ? { kind: 'calls', calls, rest: text.replace(TAGGED, '').trim() } : { kind: 'none' };
  }
  const fenced = FENCED.exec(text)?.[1];
  const whole = fenced ?? text.trim();
  if (!/^[[{]/.test(whole)) return { kind: 'none' };
  return callsOf(whole, offered, false);
}

/**
 * A JSON object or array of objects as calls. `tagged`: the model said it is a call, so JSON that does not parse
 * is a broken call; untagged text is a call only if it parses and names an offered tool.
 */
function callsOf(body: string, offered: ReadonlySet<string>, tagged: boolean): TextCalls {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch (err) {
    if (!tagged) return mentionsTool(body, offered) ? brokenJson(err) : { kind: 'none' };
    return brokenJson(err);
  }
  const items = Array.isArray(doc) ? doc : [doc];
  const calls: TextCall[] = [];
  for (const item of items) {
    const call = callOf(item, offered);
    if (typeof call === 'string') return tagged || items.length > 1 ? { kind: 'broken', why: call } : { kind: 'none' };
    calls.push(call);
  }
  return calls.length ? { kind: 'calls', calls, rest: '' } : { kind: 'none' };
}

/** `{name, arguments | parameters}` (arguments an object or JSON text) naming an offered tool, or why not. */
function callOf(item: unknown, offered: ReadonlySet<string>): TextCall | string {
  if (!item || typeof item !== 'object' || Array.isArray(item)) return 'a call is a JSON object {"name", "arguments"}';
  const o = item as Record<string, unknown>;
  const fn = o.function && typeof o.function === 'object' ? (o.function as Record<string, unknown>) : o;
  const name = fn.name;
  if (typeof name !== 'string') return 'the call has no "name"';
  if (!offered.has(name)) return `no tool is named "${name}" (the tools: ${[...offered].join(', ')})`;
  const args = fn.arguments ?? fn.parameters ?? {};
  if (typeof args === 'string') {
    try {
      JSON.parse(args);
    } catch (err) {
      return `the arguments of ${name} are not valid JSON: ${(err as Error).message}`;
    }
    return { name, arguments: args };
  }
  if (typeof args !== 'object' || Array.isArray(args)) return `the arguments of ${name} must be a JSON object`;
  return { name, arguments: JSON.stringify(args) };
}

function mentionsTool(body: string, offered: ReadonlySet<string>): boolean {
  return [...offered].some((name) => body.includes(`"${name}"`));
}

const brokenJson = (err: unknown): TextCalls => ({
  kind: 'broken',
  why: `the tool call is not valid JSON: ${(err as Error).message}`,
});

/** Told to the model once per broken call, with the form that works. */
export function retryMessage(why: string): string {
  return (
    `Your tool call could not be read: ${why}. Call a tool again as ` +
    '<tool_call>{"name": "<tool>", "arguments": {…}}</tool_call> with valid JSON, or answer without tools.'
  );
}
