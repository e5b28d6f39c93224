import { describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { startMcpHttp } from '../../../helpers/mcp-http-server.js';
import { deliverOne, postJson, runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, toolResults, type Script } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, startTestService } from '../../../helpers/service.js';

const h = serviceHarness();
const SECRET = 'mcp-header-secret-7f3a9c';

/** A read-only call whose output echoes the header, and a write tool; then an answer quoting the results. */
const script: Script = (req) => {
  const results = toolResults(req);
  if (results.length === 0)
    return {
      toolCalls: [
        { id: 'c-who', name: 'graf_list_whoami', arguments: {} },
        { id: 'c-restart', name: 'graf_restart_pod', arguments: { pod: 'api-1' } },
      ],
    };
  return { content: `answer: ${JSON.stringify(results.map((r) => r.result))}` };
};

describe('an MCP toolset in serve', () => {
  it('pauses its write tool for approval through the API, and its header secret reaches no log, record or API', async () => {
    const mcp = await startMcpHttp('streamable-http');
    try {
      const yaml = [
        'mcp:',
        '  servers:',
        '    - name: graf',
        `      url: ${mcp.url}`,
        '      headers: { Authorization: "Bearer ${GRAF_MCP_TOKEN}" }',
        '      readOnly: ["list_*", "query_*"]',
        '',
      ].join('\n');
      const rt = runtimeConfig(yaml);
      h.llm = await startScriptedLlm(script);
      h.svc = await startTestService(h.redis.url, {
        OPENAI_API_KEY: 'sk-x',
        OPENAI_BASE_URL: h.llm.baseUrl,
        LESTRADE_CONFIG: rt.config,
        GRAF_MCP_TOKEN: SECRET,
      });
      const id = await deliverOne(h.svc.base);
      const waiting = await statusIs(h.svc.base, id, ['awaiting_approval']);
      expect(waiting.approvals.pending).toMatchObject([
        { toolCallId: 'c-restart', tool: 'graf_restart_pod', reason: expect.stringMatching(/side effects/) },
      ]);
      expect(mcp.seen.calls.map((c) => c.tool)).toEqual(['list_whoami']);
      const res = await postJson(`${h.svc.base}/api/investigations/${id}/approvals`, {
        decisions: [{ toolCallId: 'c-restart', approved: true }],
      });
      expect(res.status).toBe(202);
      const done = await statusIs(h.svc.base, id, ['completed', 'failed']);
      expect(done.status).toBe('completed');
      expect(mcp.seen.calls.map((c) => c.tool)).toEqual(['list_whoami', 'restart_pod']);
      // The server did get the secret...
      expect(mcp.seen.authorization).toContain(`Bearer ${SECRET}`);
      // ...and echoed it: the record, the API and the logs show it redacted.
      expect(done.toolCalls[0].output ?? JSON.stringify(done.toolCalls[0])).toContain('[redacted]');
      expect(JSON.stringify(done)).not.toContain(SECRET);
      const record = await h.admin.hgetall(keys.investigation(id));
      expect(JSON.stringify(record)).not.toContain(SECRET);
      expect(await h.admin.get(keys.checkpoint(id))).not.toContain(SECRET);
      expect(JSON.stringify(h.svc.logs)).not.toContain(SECRET);
      const ready = await getJson(`${h.svc.base}/readyz`);
      expect(ready.body.toolsets).toMatchObject({ graf: 'enabled' });
      expect(JSON.stringify(ready.body)).not.toContain(SECRET);
    } finally {
      await mcp.stop();
    }
  });
});
