import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { TokenCounter } from '../../../../src/context/token-counter.js';
import { deliverOne, runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, toolResults, type ChatRequest, type Script } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { startTestService } from '../../../helpers/service.js';

const h = serviceHarness();
let counter: TokenCounter;

beforeAll(async () => {
  counter = await TokenCounter.load('o200k_base');
});

async function serve(script: Script, env: Record<string, string>) {
  const rt = runtimeConfig();
  h.llm = await startScriptedLlm(script);
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: h.llm.baseUrl,
    LESTRADE_MODEL: 'gpt-4o',
    LESTRADE_CONFIG: rt.config,
    ...env,
  });
  return h.svc;
}

const isSummary = (req: ChatRequest) => /compress the working notes/.test(req.messages[0]?.content ?? '');
/** What a request costs, counted as the service counts it (messages, framing, tool schemas). */
const cost = (req: ChatRequest) => counter.conversation(req.messages as never, (req.tools ?? []) as never);

describe('a tool result larger than the budget', () => {
  it('is kept whole for the API; the model gets its size, a head and a hint, and can narrow it with a filter', async () => {
    const s = await serve(
      (req) => {
        const results = toolResults(req);
        if (results.length === 0) return { toolCalls: [{ id: 'big', name: 'numbers', arguments: { n: 20_000 } }] };
        if (results.length === 1)
          return { toolCalls: [{ id: 'tail', name: 'numbers', arguments: { n: 20_000, output_tail: 3 } }] };
        return { content: 'done' };
      },
      { LESTRADE_MAX_RESULT_TOKENS: '500' },
    );
    const id = await deliverOne(s.base);
    const inv = await statusIs(s.base, id, ['completed', 'failed']);
    const first = toolResults(h.llm!.requests[1]!)[0]!.result;
    const full = execFileSync('seq', ['1', '20000'], { encoding: 'utf8' });
    expect(first).toMatchObject({
      status: 'success',
      truncated: true,
      outputTokens: counter.count(full),
      hint: expect.stringMatching(/more than is sent whole \(limit 500\).*output_grep.*output_tail/),
    });
    expect(String(first.data).startsWith('1\n2\n3\n')).toBe(true);
    expect(counter.count(String(first.data))).toBeLessThanOrEqual(250);
    // The filter offered to the model is applied by the runtime: the narrowed call fits.
    expect(h.llm!.requests[0]!.tools!.find((t) => t.function.name === 'numbers')!.function.parameters).toMatchObject({
      properties: { output_tail: { type: 'integer' } },
    });
    expect(toolResults(h.llm!.requests[2]!)[1]!.result).toMatchObject({
      status: 'success',
      data: '19998\n19999\n20000\n',
      params: { n: 20000, output_tail: 3 },
    });
    expect(inv.toolCalls[0]).toMatchObject({ name: 'numbers', outputTokens: counter.count(full), toolCallId: 'big' });
    const kept = await fetch(`${s.base}/api/investigations/${id}/outputs/big`);
    expect(kept.status).toBe(200);
    expect(await kept.text()).toBe(full);
    expect((await fetch(`${s.base}/api/investigations/${id}/outputs/tail`)).status).toBe(404);
  });
});

describe('a conversation nearing the context window', () => {
  it('is compacted by an LLM summary: the summary request is made, the next request fits, repeats are still refused', async () => {
    const WINDOW = 6_000;
    let step = 0;
    const s = await serve(
      (req) => {
        if (isSummary(req))
          return { content: 'FINDINGS: numbers tool printed sequences; nothing abnormal. OPEN: none.' };
        step += 1;
        if (step <= 12) return { toolCalls: [{ name: 'numbers', arguments: { n: 300 + step } }] };
        if (step === 13) return { toolCalls: [{ name: 'numbers', arguments: { n: 301 } }] }; // made before the compaction
        return { content: 'RCA after compaction' };
      },
      { LESTRADE_CONTEXT_WINDOW: String(WINDOW) },
    );
    const id = await deliverOne(s.base);
    const inv = await statusIs(s.base, id, ['completed', 'failed'], 30_000);
    expect(inv).toMatchObject({ status: 'completed', rca: 'RCA after compaction' });
    const summaries = h.llm!.requests.map((r, i) => [r, i] as const).filter(([r]) => isSummary(r));
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    const [, at] = summaries[0]!;
    const next = h.llm!.requests[at + 1]!;
    expect(next.messages[2]).toMatchObject({
      role: 'user',
      content: expect.stringMatching(/^Summary of your earlier investigation steps[\s\S]*FINDINGS: numbers tool/),
    });
    for (const req of h.llm!.requests.filter((r) => !isSummary(r))) expect(cost(req)).toBeLessThanOrEqual(WINDOW * 0.9);
    expect(cost(h.llm!.requests[at - 1]!)).toBeGreaterThan(WINDOW * 0.6);
    // The duplicate-call memory survived: the repeat of a compacted-away call was refused.
    const repeat = h.llm!.requests.filter((r) => !isSummary(r)).at(-1)!;
    expect(toolResults(repeat).at(-1)!.result).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/already made/),
    });
    expect(inv.context).toMatchObject({
      windowTokens: WINDOW,
      peakTokens: expect.any(Number),
      compactions: expect.arrayContaining([expect.objectContaining({ summarizedMessages: expect.any(Number) })]),
    });
    expect(inv.context.peakTokens).toBeLessThanOrEqual(WINDOW * 0.9);
    expect(inv.context.compactions[0].tokensAfter).toBeLessThan(inv.context.compactions[0].tokensBefore);
  });
});
