import { describe, expect, it } from 'vitest';
import { deliverOne, postJson, runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, toolResults } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { startTestService } from '../../../helpers/service.js';

const h = serviceHarness();

const ALLOWED = "printf 'x\\ny\\nx\\n' | sort | uniq -c | sort -rn";

describe('the bash toolset through serve', () => {
  it('runs allowed pipelines, refuses dangerous commands with the reason, and asks a human for the rest', async () => {
    // printf is not on the built-in list: the configured allow prefix lets it run without asking.
    const rt = runtimeConfig('', 'bash: { allow: [printf] }');
    h.llm = await startScriptedLlm((req) =>
      toolResults(req).length === 0
        ? {
            toolCalls: [
              { id: 'ok', name: 'bash', arguments: { command: ALLOWED } },
              { id: 'no', name: 'bash', arguments: { command: 'kubectl delete namespace prod' } },
              { id: 'ask', name: 'bash', arguments: { command: 'date -u +%Y' } },
            ],
          }
        : { content: 'done' },
    );
    h.svc = await startTestService(h.redis.url, {
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: h.llm.baseUrl,
      LESTRADE_CONFIG: rt.config,
      LESTRADE_BASH_ENABLED: 'true',
    });
    const s = h.svc;
    const id = await deliverOne(s.base);
    const waiting = await statusIs(s.base, id, ['awaiting_approval', 'failed']);
    expect(waiting.approvals.pending).toEqual([
      {
        toolCallId: 'ask',
        tool: 'bash',
        params: { command: 'date -u +%Y' },
        reason: 'date is not on the read-only list',
      },
    ]);
    expect(h.llm.requests[0]!.tools!.map((t) => t.function.name)).toContain('bash');
    await postJson(`${s.base}/api/investigations/${id}/approvals`, {
      decisions: [{ toolCallId: 'ask', approved: true }],
    });
    await statusIs(s.base, id, ['completed']);
    const results = Object.fromEntries(toolResults(h.llm.requests[1]!).map((t) => [t.tool_call_id, t.result]));
    expect(results.ok).toMatchObject({ status: 'success', data: expect.stringMatching(/^\s*2 x\n\s*1 y\n$/) });
    expect(results.no).toMatchObject({ status: 'error', error: 'refused: kubectl delete changes the cluster' });
    expect(results.ask).toMatchObject({ status: 'success', data: `${new Date().getUTCFullYear()}\n` });
  });
});
