import { describe, expect, it } from 'vitest';
import { deliverOne, investigation, postJson, runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, toolResults, type Script } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, startTestService, waitFor } from '../../../helpers/service.js';

/** Follow-up questions cost like investigations: usage per question, the day's totals, the token budget. */
const h = serviceHarness();

const lastUser = (req: { messages: Array<{ role: string; content?: string | null }> }) =>
  req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';

/**
 * The investigation: one call of 100 + 10 tokens (or, on an alert asking for a restart, a restart
 * that waits for approval and then the answer). A follow-up: a `say` call, then the answer, each
 * call 45 + 5 tokens (a restart question: the restart, approved, then the answer).
 */
const script: Script = (req) => {
  const q = lastUser(req);
  const answered = req.messages.at(-1)?.role === 'tool';
  const small = { prompt: 45, completion: 5 };
  if (!q.includes('Follow-up question')) {
    if (!JSON.stringify(req.messages).includes('restart-me') || answered)
      return { content: '## Root cause\nthe database' };
    return { toolCalls: [{ id: 'inv-rs', name: 'restart', arguments: { name: 'db' } }] };
  }
  if (answered) return { content: `after ${String(toolResults(req).at(-1)!.result.status)}`, usage: small };
  if (q.includes('restart'))
    return { toolCalls: [{ id: 'rs2', name: 'restart', arguments: { name: 'db-again' } }], usage: small };
  return { toolCalls: [{ name: 'say', arguments: { word: `checked-${req.messages.length}` } }], usage: small };
};

const PRICING = 'pricing: { currency: EUR, models: { scripted: { inputPerMillion: 1000, outputPerMillion: 2000 } } }\n';

async function serve(yaml = PRICING) {
  const rt = runtimeConfig(yaml);
  h.llm = await startScriptedLlm(script);
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: h.llm.baseUrl,
    LESTRADE_MODEL: 'scripted',
    LESTRADE_CONFIG: rt.config,
  });
  return h.svc;
}

const today = async (base: string) => (await getJson(`${base}/api/usage?days=1`)).body.days[0];

async function approveAll(base: string, id: string, ask: boolean) {
  const waiting = await statusIs(base, id, ['awaiting_approval'], 20_000, ask);
  const decisions = waiting.approvals.pending.map((p: { toolCallId: string }) => ({
    toolCallId: p.toolCallId,
    approved: true,
  }));
  expect((await postJson(`${base}/api/investigations/${id}/approvals`, { decisions })).status).toBeLessThan(300);
}

describe('follow-up usage', () => {
  it("counts each question's calls, tokens and cost on its entry and in the day's totals", async () => {
    const s = await serve();
    const id = await deliverOne(s.base);
    await waitFor('the investigation to be priced', async () => (await investigation(s.base, id)).cost, 20_000);
    await postJson(`${s.base}/api/investigations/${id}/ask`, { question: 'Can you check it?' });
    const inv = await statusIs(s.base, id, ['answered', 'failed'], 20_000, true);
    const entryCost = { amount: 0.11, currency: 'EUR', model: 'scripted' };
    expect(inv.conversation[0]).toMatchObject({
      status: 'answered',
      usage: { llmCalls: 2, promptTokens: 90, completionTokens: 10 },
    });
    // The ledger entry lands just after the answer.
    const priced = await waitFor('the question to be priced', async () => {
      const i = await investigation(s.base, id);
      return i.conversation[0].cost && i;
    });
    expect(priced.conversation[0].cost).toEqual(entryCost);
    // The investigation's own cost stays its own; the record's usage is the whole conversation's.
    expect(priced.cost).toEqual({ amount: 0.12, currency: 'EUR', model: 'scripted' });
    expect(priced.usage).toEqual({ llmCalls: 3, promptTokens: 190, completionTokens: 20 });
    expect(await today(s.base)).toEqual({
      date: expect.any(String),
      investigations: 1,
      followUps: 1,
      promptTokens: 190,
      completionTokens: 20,
      cost: 0.23,
      unpriced: 0,
    });
    // A second question is a second entry, counted apart.
    await postJson(`${s.base}/api/investigations/${id}/ask`, { question: 'And again?' });
    await statusIs(s.base, id, ['answered', 'failed'], 20_000, true);
    const second = await waitFor('the second question to be priced', async () => {
      const i = await investigation(s.base, id);
      return i.conversation[1]?.cost && i;
    });
    expect(second.conversation[1].usage).toEqual({ llmCalls: 2, promptTokens: 90, completionTokens: 10 });
    expect(await today(s.base)).toMatchObject({ followUps: 2, promptTokens: 280, completionTokens: 30, cost: 0.34 });
  });

  it("counts a question's tokens against budgets.tokensPerDay", async () => {
    const s = await serve('budgets: { tokensPerDay: 200, recheckSeconds: 0.2 }\n');
    const id = await deliverOne(s.base);
    await waitFor('the investigation to be counted', async () => (await today(s.base)).promptTokens === 100);
    await postJson(`${s.base}/api/investigations/${id}/ask`, { question: 'Can you check it?' });
    await statusIs(s.base, id, ['answered', 'failed'], 20_000, true);
    await waitFor('the question to be counted', async () => (await today(s.base)).promptTokens === 190);
    // 110 + 100 tokens: the day's budget is used up, so the next investigation waits.
    const next = await deliverOne(s.base, 'fedcba9876543210');
    const waiting = await statusIs(s.base, next, ['queued', 'completed']);
    const held = await waitFor('the next investigation to wait', async () => {
      const i = await investigation(s.base, next);
      return i.waitingReason && i;
    });
    expect(waiting.status).toBe('queued');
    expect(held.waitingReason).toBe('budget: 200 LLM tokens per day used (210); waits for the next UTC day');
  });

  it('counts both calls of an investigation resumed after approval, and of a follow-up resumed after approval', async () => {
    const s = await serve();
    const id = await deliverOne(s.base, '00000000000000aa', { summary: 'restart-me' });
    await approveAll(s.base, id, false);
    const done = await statusIs(s.base, id, ['completed', 'failed']);
    expect(done.usage).toEqual({ llmCalls: 2, promptTokens: 200, completionTokens: 20 });
    await waitFor('the investigation to be counted', async () => (await today(s.base)).promptTokens === 200);
    await postJson(`${s.base}/api/investigations/${id}/ask`, { question: 'Should we restart it again?' });
    await approveAll(s.base, id, true);
    await statusIs(s.base, id, ['answered', 'failed'], 20_000, true);
    const priced = await waitFor('the question to be priced', async () => {
      const i = await investigation(s.base, id);
      return i.conversation[0].cost && i;
    });
    expect(priced.conversation[0].usage).toEqual({ llmCalls: 2, promptTokens: 90, completionTokens: 10 });
    expect(priced.usage.llmCalls).toBe(4);
    expect(await today(s.base)).toMatchObject({ investigations: 1, followUps: 1, promptTokens: 290 });
  });
});
