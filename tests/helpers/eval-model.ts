import type { EvalCase } from '../../cli/eval/eval-case.js';
import { recordedCall } from '../../cli/eval/replay.js';
import type { ToolAliases } from '../../cli/eval/tool-aliases.js';
import type { ChatRequest, Reply, Script } from './scripted-llm.js';

/** The case a request investigates: the one whose issue title its investigate prompt carries. */
export function caseOf(req: ChatRequest, cases: EvalCase[]): EvalCase {
  const prompt = String(req.messages[1]?.content ?? '');
  const hit = cases.filter((c) => prompt.includes(`Title: ${c.issue.title}\n`));
  if (hit.length !== 1) throw new Error(`request matches ${hit.length} cases: ${prompt.slice(0, 200)}`);
  return hit[0]!;
}

/** One call per mock of the case, in the words of the tool the request offers (aliases applied, as the replay makes it). */
export function callsForMocks(req: ChatRequest, c: EvalCase, aliases: ToolAliases): Reply['toolCalls'] {
  const offered = new Map(
    (req.tools ?? []).map((t) => {
      const props = (t.function.parameters as { properties?: Record<string, unknown> } | undefined)?.properties;
      return [t.function.name, { params: { shape: props ?? {} } }] as const;
    }),
  );
  return c.mocks.map((m, i) => {
    const call = recordedCall(m, aliases, offered);
    return { name: call.tool, arguments: call.params, id: `call_${i}` };
  });
}

/** An RCA in the four sections, stating the facts and quoting a line of each tool output as evidence. */
export function answerFrom(req: ChatRequest, facts: string[]): string {
  const quotes = req.messages
    .filter((m) => m.role === 'tool')
    .map((m) => (JSON.parse(m.content ?? '{}') as { data?: string; error?: string }).data ?? '')
    .map((d) => d.split('\n').find((l) => /\w{3}/.test(l) && !/^(stdout|stderr):/.test(l)) ?? '')
    .filter(Boolean)
    .map((l) => `- \`${l.trim().slice(0, 70)}\``);
  return [
    '## Alert explanation',
    '- The alert fired.',
    '## Key findings',
    ...quotes,
    '## Root cause',
    ...facts.map((f) => `- ${f}`),
    '## Next steps',
    '- Fix it.',
  ].join('\n');
}

/**
 * A model that investigates properly: calls every mocked tool of the case in its first turn, then
 * answers from what came back. With `look: false` it answers at once, without a tool (and without
 * the facts, which it could not know).
 */
export function investigatingModel(cases: EvalCase[], aliases: ToolAliases, opts: { look?: boolean } = {}): Script {
  return (req) => {
    const c = caseOf(req, cases);
    const answered = req.messages.some((m) => m.role === 'assistant');
    if (opts.look === false) return { content: answerFrom(req, ['It is probably a transient network problem.']) };
    if (!answered && c.mocks.length) return { toolCalls: callsForMocks(req, c, aliases) };
    return { content: answerFrom(req, c.expected) };
  };
}
