import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { deliverOne, investigation, postJson, runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, toolResults, type Script } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { startTestService, waitFor } from '../../../helpers/service.js';

const h = serviceHarness();

const lastUser = (req: { messages: Array<{ role: string; content?: string | null }> }) =>
  req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';

/** The investigation answers at once; a question mentioning "restart" or "check" uses a tool first. */
const script: Script = (req) => {
  const q = lastUser(req);
  const answered = req.messages.at(-1)?.role === 'tool';
  if (!q.includes('Follow-up question')) return { content: '## Root cause\nthe database' };
  if (answered) return { content: `follow-up answer after ${String(toolResults(req).at(-1)!.result.status)}` };
  if (q.includes('restart'))
    return { toolCalls: [{ id: `rs${req.messages.length}`, name: 'restart', arguments: { name: 'db' } }] };
  if (q.includes('slowly')) return { toolCalls: [{ name: 'sleepy', arguments: { name: 'slow-follow-up' } }] };
  if (q.includes('check'))
    return { toolCalls: [{ name: 'say', arguments: { word: `checked-${req.messages.length}` } }] };
  return { content: `answer to: ${q.split('\n').at(-1)}` };
};

async function completed() {
  const rt = runtimeConfig();
  h.llm = await startScriptedLlm(script);
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: h.llm.baseUrl,
    LESTRADE_CONFIG: rt.config,
  });
  const id = await deliverOne(h.svc.base);
  await statusIs(h.svc.base, id, ['completed']);
  return { s: h.svc, id, rt };
}

describe('follow-up questions', () => {
  it('continue the completed conversation from its checkpoint and store the answer as a new entry', async () => {
    const { s, id } = await completed();
    expect(await h.admin.exists(keys.checkpoint(id))).toBe(1);
    const res = await postJson(`${s.base}/api/investigations/${id}/ask`, { question: 'Why the database?' });
    expect(res).toMatchObject({ status: 202, body: { status: 'queued', entry: 0 } });
    await statusIs(s.base, id, ['answered', 'failed'], 20_000, true);
    // The question's ledger entry (its cost) lands just after the answer.
    const inv = await waitFor('the question to be counted', async () => {
      const i = await investigation(s.base, id);
      return i.conversation[0].cost && i;
    });
    expect(inv.conversation).toEqual([
      {
        question: 'Why the database?',
        answer: 'answer to: Why the database?',
        status: 'answered',
        askedAt: expect.any(String),
        answeredAt: expect.any(String),
        error: null,
        usage: { llmCalls: 1, promptTokens: 100, completionTokens: 10 },
        // gpt-4o has no price in this set-up: unknown, not free (issue 29, defect 6).
        cost: { amount: null, currency: 'USD', model: expect.any(String) },
      },
    ]);
    expect(inv).toMatchObject({ status: 'completed', rca: '## Root cause\nthe database' });
    const req = h.llm!.requests.at(-1)!;
    // The whole history went with it: system, the investigation prompt, the RCA, then the question; tools still offered.
    expect(req.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(req.messages[2]!.content).toBe('## Root cause\nthe database');
    expect(req.tools?.map((t) => t.function.name)).toContain('say');
    expect(inv.usage.llmCalls).toBe(2);
  });

  it("use tools like the investigation, and a second question sees the first one's answer", async () => {
    const { s, id } = await completed();
    await postJson(`${s.base}/api/investigations/${id}/ask`, { question: 'Can you check it?' });
    await statusIs(s.base, id, ['answered'], 20_000, true);
    await postJson(`${s.base}/api/investigations/${id}/ask`, { question: 'And now?' });
    const inv = await statusIs(s.base, id, ['answered'], 20_000, true);
    expect(inv.conversation.map((c: { answer: string }) => c.answer)).toEqual([
      'follow-up answer after success',
      'answer to: And now?',
    ]);
    expect(inv.toolCalls).toEqual([expect.objectContaining({ name: 'say', status: 'success' })]);
    const last = h.llm!.requests.at(-1)!;
    expect(last.messages.filter((m) => m.role === 'assistant').map((m) => m.content)).toContain(
      'follow-up answer after success',
    );
  });

  it('pause for approval like the investigation does', async () => {
    const { s, id, rt } = await completed();
    await postJson(`${s.base}/api/investigations/${id}/ask`, { question: 'Should we restart it?' });
    const waiting = await statusIs(s.base, id, ['awaiting_approval'], 20_000, true);
    expect(waiting.status).toBe('completed');
    expect(waiting.approvals).toMatchObject({ phase: 'ask', pending: [{ tool: 'restart' }] });
    const busy = await postJson(`${s.base}/api/investigations/${id}/ask`, { question: 'another' });
    expect(busy).toMatchObject({ status: 409, body: { error: expect.stringMatching(/already in progress/) } });
    await postJson(`${s.base}/api/investigations/${id}/approvals`, {
      decisions: [{ toolCallId: waiting.approvals.pending[0].toolCallId, approved: true }],
    });
    const inv = await statusIs(s.base, id, ['answered', 'failed'], 20_000, true);
    expect(inv.conversation[0].answer).toBe('follow-up answer after no_data');
    expect(existsSync(rt.marker('db'))).toBe(true);
  });

  it('can be cancelled while they run; the investigation stays completed and takes the next question', async () => {
    const { s, id, rt } = await completed();
    await postJson(`${s.base}/api/investigations/${id}/ask`, { question: 'Look slowly?' });
    await statusIs(s.base, id, ['running'], 20_000, true);
    await new Promise((r) => setTimeout(r, 300));
    const res = await postJson(`${s.base}/api/investigations/${id}/cancel`, {});
    expect(res.body).toMatchObject({ status: 'cancelled', phase: 'ask', previous: 'running' });
    const inv = await statusIs(s.base, id, ['cancelled'], 20_000, true);
    expect(inv.status).toBe('completed');
    await new Promise((r) => setTimeout(r, 3_300));
    expect(existsSync(rt.marker('slow-follow-up'))).toBe(false);
    await postJson(`${s.base}/api/investigations/${id}/ask`, { question: 'And now?' });
    const next = await statusIs(s.base, id, ['answered'], 20_000, true);
    expect(next.conversation.map((c: { status: string }) => c.status)).toEqual(['cancelled', 'answered']);
  });

  it('start over on a new question when the last one was cancelled while awaiting approval', async () => {
    const { s, id, rt } = await completed();
    await postJson(`${s.base}/api/investigations/${id}/ask`, { question: 'Should we restart it?' });
    await statusIs(s.base, id, ['awaiting_approval'], 20_000, true);
    await postJson(`${s.base}/api/investigations/${id}/cancel`, {});
    await postJson(`${s.base}/api/investigations/${id}/ask`, { question: 'Should we restart it?' });
    const waiting = await statusIs(s.base, id, ['awaiting_approval', 'failed'], 20_000, true);
    expect(waiting.conversation.map((c: { status: string }) => c.status)).toEqual(['cancelled', 'awaiting_approval']);
    await postJson(`${s.base}/api/investigations/${id}/approvals`, {
      decisions: [{ toolCallId: waiting.approvals.pending[0].toolCallId, approved: false }],
    });
    const inv = await statusIs(s.base, id, ['answered', 'failed'], 20_000, true);
    expect(inv.conversation[1]).toMatchObject({ status: 'answered', answer: 'follow-up answer after denied' });
    expect(existsSync(rt.marker('db'))).toBe(false);
    // The abandoned call was answered too: every tool_call in the history has its result.
    const last = h.llm!.requests.at(-1)!;
    const calls = last.messages.flatMap((m) => m.tool_calls?.map((c) => c.id) ?? []);
    expect(calls.every((c) => last.messages.some((m) => m.role === 'tool' && m.tool_call_id === c))).toBe(true);
  });

  it('are refused, saying why, for an investigation that is not completed or a bad question', async () => {
    const rt = runtimeConfig();
    h.llm = await startScriptedLlm((req) =>
      toolResults(req).length === 0
        ? { toolCalls: [{ id: 'x', name: 'restart', arguments: { name: 'a' } }] }
        : { content: 'x' },
    );
    h.svc = await startTestService(h.redis.url, {
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: h.llm.baseUrl,
      LESTRADE_CONFIG: rt.config,
    });
    const id = await deliverOne(h.svc.base);
    await statusIs(h.svc.base, id, ['awaiting_approval']);
    const early = await postJson(`${h.svc.base}/api/investigations/${id}/ask`, { question: 'why?' });
    expect(early).toMatchObject({
      status: 409,
      body: { error: 'only a completed investigation takes follow-up questions (status: awaiting_approval)' },
    });
    expect((await postJson(`${h.svc.base}/api/investigations/${id}/ask`, { question: '  ' })).status).toBe(400);
    expect((await postJson(`${h.svc.base}/api/investigations/${id}/ask`, {})).body).toMatchObject({
      field: 'question',
    });
    expect((await investigation(h.svc.base, id)).conversation).toEqual([]);
  });
});
