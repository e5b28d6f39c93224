import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { deliverOne, investigation, postJson, runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, toolResults, type Script } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, startTestService, waitFor } from '../../../helpers/service.js';

const h = serviceHarness();

/** First turn: a read-only call and a side-effecting one; then an answer quoting every tool result. */
const restartScript: Script = (req) => {
  const results = toolResults(req);
  if (results.length === 0) {
    return {
      toolCalls: [
        { id: 'c-say', name: 'say', arguments: { word: 'hello' } },
        { id: 'c-restart', name: 'restart', arguments: { name: 'api' } },
      ],
    };
  }
  return { content: `answer: ${JSON.stringify(results.map((r) => r.result))}` };
};

async function serve(script: Script, env: Record<string, string> = {}) {
  const rt = runtimeConfig();
  h.llm = await startScriptedLlm(script);
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: h.llm.baseUrl,
    LESTRADE_CONFIG: rt.config,
    ...env,
  });
  return { s: h.svc, rt };
}

describe('approval that pauses and resumes', () => {
  it('pauses on a side-effecting call, shows it, and runs it once approved, without repeating an LLM call', async () => {
    const { s, rt } = await serve(restartScript);
    const id = await deliverOne(s.base);
    const waiting = await statusIs(s.base, id, ['awaiting_approval']);
    expect(waiting.approvals).toMatchObject({
      seq: 1,
      phase: 'investigation',
      expiresAt: expect.any(String),
      pending: [
        {
          toolCallId: 'c-restart',
          tool: 'restart',
          params: { name: 'api' },
          reason: expect.stringMatching(/side effects/),
        },
      ],
    });
    expect(existsSync(rt.marker('api'))).toBe(false);
    expect(h.llm!.requests).toHaveLength(1);
    // The worker is free: the job finished, nothing holds the investigation, and the pending expiry
    // is not counted as work waiting for a worker.
    expect(await h.admin.hget(keys.investigation(id), 'status')).toBe('awaiting_approval');
    expect((await getJson(`${s.base}/api/investigations`)).body.queue).toEqual({
      waiting: 0,
      oldestWaitingSeconds: null,
    });

    const res = await postJson(`${s.base}/api/investigations/${id}/approvals`, {
      decisions: [{ toolCallId: 'c-restart', approved: true }],
    });
    expect(res).toMatchObject({ status: 202, body: { status: 'queued' } });
    const done = await statusIs(s.base, id, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    expect(existsSync(rt.marker('api'))).toBe(true);
    expect(h.llm!.requests).toHaveLength(2);
    // Every tool_call answered, in call order: the read-only one ran before the pause, the approved one after.
    const answered = toolResults(h.llm!.requests[1]!);
    expect(answered.map((a) => [a.tool_call_id, a.result.status])).toEqual([
      ['c-say', 'success'],
      ['c-restart', 'no_data'],
    ]);
    expect(done.toolCalls.map((t: { name: string; status: string }) => [t.name, t.status])).toEqual([
      ['say', 'success'],
      ['restart', 'no_data'],
    ]);
    expect(done.approvals).toBeNull();
  });

  it("answers a denied call with the human's feedback in-band, so the next request carries it", async () => {
    const { s, rt } = await serve(restartScript);
    const id = await deliverOne(s.base);
    await statusIs(s.base, id, ['awaiting_approval']);
    const feedback = 'Do not restart api during business hours; check the database first.';
    const res = await postJson(`${s.base}/api/investigations/${id}/approvals`, {
      decisions: [{ toolCallId: 'c-restart', approved: false, feedback }],
    });
    expect(res.status).toBe(202);
    const done = await statusIs(s.base, id, ['completed', 'failed']);
    expect(existsSync(rt.marker('api'))).toBe(false);
    const denied = toolResults(h.llm!.requests[1]!).find((t) => t.tool_call_id === 'c-restart')!.result;
    expect(denied).toMatchObject({ status: 'denied', error: expect.stringMatching(/human .*denied/), feedback });
    expect(done.toolCalls[1]).toMatchObject({ name: 'restart', status: 'denied', feedback });
    expect(done.rca).toContain(feedback);
  });

  it('refuses decisions that cannot apply, saying why', async () => {
    const { s } = await serve(restartScript);
    const id = await deliverOne(s.base);
    await statusIs(s.base, id, ['awaiting_approval']);
    const url = `${s.base}/api/investigations/${id}/approvals`;
    const unknown = await postJson(url, { decisions: [{ toolCallId: 'nope', approved: true }] });
    expect(unknown).toMatchObject({
      status: 422,
      body: { error: expect.stringMatching(/no pending tool call nope; pending: c-restart/) },
    });
    const bad = await postJson(url, { decisions: [{ toolCallId: 'c-restart', approved: 'yes' }] });
    expect(bad).toMatchObject({ status: 400, body: { field: 'decisions.0.approved' } });
    const twice = await postJson(url, {
      decisions: [
        { toolCallId: 'c-restart', approved: true },
        { toolCallId: 'c-restart', approved: false },
      ],
    });
    expect(twice).toMatchObject({ status: 400, body: { error: expect.stringMatching(/two decisions/) } });
    expect((await postJson(url, { decisions: [{ toolCallId: 'c-restart', approved: false }] })).status).toBe(202);
    const again = await postJson(url, { decisions: [{ toolCallId: 'c-restart', approved: true }] });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already decided|not awaiting approval/);
    await statusIs(s.base, id, ['completed']);
    const late = await postJson(url, { decisions: [{ toolCallId: 'c-restart', approved: true }] });
    expect(late).toMatchObject({
      status: 409,
      body: { error: 'investigation is not awaiting approval (status: completed)' },
    });
    expect(
      (
        await postJson(`${s.base}/api/investigations/00000000-0000-4000-8000-000000000000/approvals`, {
          decisions: [{ toolCallId: 'x', approved: true }],
        })
      ).status,
    ).toBe(404);
  });

  it('runs a resumed investigation once, even when a repeat delivery of its alert requeues it meanwhile', async () => {
    const { s, rt } = await serve(restartScript);
    const id = await deliverOne(s.base);
    await statusIs(s.base, id, ['awaiting_approval']);
    await postJson(`${s.base}/api/investigations/${id}/approvals`, {
      decisions: [{ toolCallId: 'c-restart', approved: true }],
    });
    // The repeat finds the record queued and its first job finished: intake enqueues it again.
    expect(await deliverOne(s.base).catch(() => null)).toBeNull();
    await statusIs(s.base, id, ['completed']);
    await new Promise((r) => setTimeout(r, 500));
    expect(h.llm!.requests).toHaveLength(2);
    expect(existsSync(rt.marker('api'))).toBe(true);
  });

  it('queues the resume again when a decision was stored but the process died before queueing it', async () => {
    const { s } = await serve(restartScript);
    const id = await deliverOne(s.base);
    await statusIs(s.base, id, ['awaiting_approval']);
    // What DECIDE leaves behind just before the resume job is added.
    await h.admin.hset(keys.approvals(id), 'd:c-restart', JSON.stringify({ approved: true }));
    await h.admin.hset(keys.investigation(id), 'status', 'queued');
    const retry = await postJson(`${s.base}/api/investigations/${id}/approvals`, {
      decisions: [{ toolCallId: 'c-restart', approved: true }],
    });
    expect(retry).toMatchObject({
      status: 409,
      body: { error: 'investigation is not awaiting approval (status: queued)' },
    });
    await statusIs(s.base, id, ['completed']);
    expect(h.llm!.requests).toHaveLength(2);
  });

  it('waits for every pending call: a partial decision keeps it paused', async () => {
    const { s, rt } = await serve((req) =>
      toolResults(req).length === 0
        ? {
            toolCalls: [
              { id: 'r1', name: 'restart', arguments: { name: 'one' } },
              { id: 'r2', name: 'restart', arguments: { name: 'two' } },
            ],
          }
        : { content: 'done' },
    );
    const id = await deliverOne(s.base);
    await statusIs(s.base, id, ['awaiting_approval']);
    const first = await postJson(`${s.base}/api/investigations/${id}/approvals`, {
      decisions: [{ toolCallId: 'r1', approved: true }],
    });
    expect(first).toMatchObject({ status: 202, body: { status: 'awaiting_approval', waitingFor: ['r2'] } });
    expect((await investigation(s.base, id)).status).toBe('awaiting_approval');
    await postJson(`${s.base}/api/investigations/${id}/approvals`, {
      decisions: [{ toolCallId: 'r2', approved: false }],
    });
    await statusIs(s.base, id, ['completed']);
    expect(existsSync(rt.marker('one'))).toBe(true);
    expect(existsSync(rt.marker('two'))).toBe(false);
  });

  it('expires unanswered approvals into "not approved in time" and has the model finish with what it has', async () => {
    const { s, rt } = await serve(restartScript, { LESTRADE_APPROVAL_TIMEOUT_SECONDS: '1' });
    const id = await deliverOne(s.base);
    await statusIs(s.base, id, ['awaiting_approval']);
    const done = await statusIs(s.base, id, ['completed', 'failed'], 15_000);
    expect(done.status).toBe('completed');
    expect(existsSync(rt.marker('api'))).toBe(false);
    const last = h.llm!.requests[1]!;
    expect(toolResults(last).find((t) => t.tool_call_id === 'c-restart')!.result).toMatchObject({
      status: 'denied',
      error: expect.stringMatching(/Not approved in time/),
    });
    expect(last.tools).toBeUndefined();
    expect(last.messages.at(-1)).toMatchObject({
      role: 'user',
      content: expect.stringMatching(/not approved in time/i),
    });
    const late = await postJson(`${s.base}/api/investigations/${id}/approvals`, {
      decisions: [{ toolCallId: 'c-restart', approved: true }],
    });
    expect(late.status).toBe(409);
  });

  it('fails clearly, without resuming, when the saved checkpoint is from another version or damaged', async () => {
    const { s } = await serve(restartScript);
    const id = await deliverOne(s.base);
    await statusIs(s.base, id, ['awaiting_approval']);
    const saved = JSON.parse((await h.admin.get(keys.checkpoint(id)))!);
    await h.admin.set(keys.checkpoint(id), JSON.stringify({ ...saved, version: 1 }));
    await postJson(`${s.base}/api/investigations/${id}/approvals`, {
      decisions: [{ toolCallId: 'c-restart', approved: true }],
    });
    const failed = await statusIs(s.base, id, ['failed', 'completed']);
    expect(failed).toMatchObject({
      status: 'failed',
      error: 'saved checkpoint is version 1; this Lestrade reads version 2 only',
    });
    expect(h.llm!.requests).toHaveLength(1);
  });
});

describe('cancel', () => {
  it('stops a waiting investigation; later decisions are refused', async () => {
    const { s } = await serve(restartScript);
    const id = await deliverOne(s.base);
    await statusIs(s.base, id, ['awaiting_approval']);
    const res = await postJson(`${s.base}/api/investigations/${id}/cancel`, {});
    expect(res).toMatchObject({ status: 200, body: { status: 'cancelled', previous: 'awaiting_approval' } });
    const inv = await investigation(s.base, id);
    expect(inv).toMatchObject({ status: 'cancelled', finishedAt: expect.any(String) });
    expect(
      (
        await postJson(`${s.base}/api/investigations/${id}/approvals`, {
          decisions: [{ toolCallId: 'c-restart', approved: true }],
        })
      ).status,
    ).toBe(409);
    expect((await postJson(`${s.base}/api/investigations/${id}/cancel`, {})).status).toBe(409);
  });

  it('aborts the running LLM request', async () => {
    const { s } = await serve(async () => {
      await new Promise(() => {});
      return { content: 'never' };
    });
    const id = await deliverOne(s.base);
    await waitFor('the LLM request', async () => h.llm!.requests.length === 1);
    const res = await postJson(`${s.base}/api/investigations/${id}/cancel`, {});
    expect(res.body).toMatchObject({ status: 'cancelled', previous: 'running' });
    await waitFor('the LLM request to be aborted', async () => h.llm!.aborted() === 1, 5_000);
    await new Promise((r) => setTimeout(r, 300));
    expect((await investigation(s.base, id)).status).toBe('cancelled');
    expect(s.logs.some((l) => l.msg === 'investigation cancelled')).toBe(true);
  });

  it('aborts a running tool: its process is killed before it finishes', async () => {
    const { s, rt } = await serve((req) =>
      toolResults(req).length === 0
        ? { toolCalls: [{ name: 'sleepy', arguments: { name: 'slept' } }] }
        : { content: 'late' },
    );
    const id = await deliverOne(s.base);
    await waitFor('the tool to start', async () => h.llm!.requests.length === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect((await postJson(`${s.base}/api/investigations/${id}/cancel`, {})).body.previous).toBe('running');
    await new Promise((r) => setTimeout(r, 3_500));
    expect(existsSync(rt.marker('slept'))).toBe(false);
    expect(h.llm!.requests).toHaveLength(1);
    expect((await investigation(s.base, id)).status).toBe('cancelled');
  });

  it('stops a queued investigation before any worker runs it', async () => {
    const noLlm = await startTestService(h.redis.url, {});
    try {
      const id = await deliverOne(noLlm.base);
      const res = await postJson(`${noLlm.base}/api/investigations/${id}/cancel`, {});
      expect(res.body).toMatchObject({ status: 'cancelled', previous: 'queued' });
    } finally {
      await noLlm.close();
    }
  });
});
