import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { deliverOne, postJson, runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, toolResults, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { startTestService, type TestService } from '../../../helpers/service.js';

let redis: TestRedis;
let admin: Redis;
let svc: TestService | undefined;
let llm: ScriptedLlm | undefined;

beforeAll(async () => { redis = await startRedis(); admin = new Redis(redis.url); });
afterAll(async () => { admin.disconnect(); await redis.stop(); });
beforeEach(async () => { await admin.flushall(); });
afterEach(async () => { await svc?.close(); svc = undefined; await llm?.close(); llm = undefined; });

const ALLOWED = "printf 'x\\ny\\nx\\n' | sort | uniq -c | sort -rn";

describe('the bash toolset through serve', () => {
  it('runs allowed pipelines, refuses dangerous commands with the reason, and asks a human for the rest', async () => {
    // printf is not on the built-in list: the configured allow prefix lets it run without asking.
    const rt = runtimeConfig('', 'bash: { allow: [printf] }');
    llm = await startScriptedLlm((req) => (toolResults(req).length === 0
      ? { toolCalls: [
        { id: 'ok', name: 'bash', arguments: { command: ALLOWED } },
        { id: 'no', name: 'bash', arguments: { command: 'kubectl delete namespace prod' } },
        { id: 'ask', name: 'bash', arguments: { command: 'date -u +%Y' } },
      ] }
      : { content: 'done' }));
    svc = await startTestService(redis.url, {
      OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: llm.baseUrl, LESTRADE_CONFIG: rt.config, LESTRADE_BASH_ENABLED: 'true',
    });
    const s = svc;
    const id = await deliverOne(s.base);
    const waiting = await statusIs(s.base, id, ['awaiting_approval', 'failed']);
    expect(waiting.approvals.pending).toEqual([
      { toolCallId: 'ask', tool: 'bash', params: { command: 'date -u +%Y' }, reason: 'date is not on the read-only list' },
    ]);
    expect(llm.requests[0]!.tools!.map((t) => t.function.name)).toContain('bash');
    await postJson(`${s.base}/api/investigations/${id}/approvals`, { decisions: [{ toolCallId: 'ask', approved: true }] });
    await statusIs(s.base, id, ['completed']);
    const results = Object.fromEntries(toolResults(llm.requests[1]!).map((t) => [t.tool_call_id, t.result]));
    expect(results.ok).toMatchObject({ status: 'success', data: expect.stringMatching(/^\s*2 x\n\s*1 y\n$/) });
    expect(results.no).toMatchObject({ status: 'error', error: 'refused: kubectl delete changes the cluster' });
    expect(results.ask).toMatchObject({ status: 'success', data: `${new Date().getUTCFullYear()}\n` });
  });
});
