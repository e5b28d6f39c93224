import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTPUT_KEEP_CHARS, toToolCallRecord } from '../../../../src/store/investigation.js';
import { amFixture } from '../../../helpers/fixtures.js';
import { pushAlerts, startAlertmanager, type TestAlertmanager } from '../../../helpers/alertmanager.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { runCli } from '../../../helpers/run-cli.js';
import { startScriptedLlm, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor } from '../../../helpers/service.js';

// A tool call is {tool, elapsedMs, ...} inside the loop (what the model reads back, and what
// checkpoints hold) and {name, durationMs, ...} everywhere Lestrade answers: the API and the
// CLI's JSON. The one mapping is toToolCallRecord.

const RECORD_KEYS = ['durationMs', 'error', 'name', 'params', 'status'];

let redis: TestRedis;
let am: TestAlertmanager;
let llm: ScriptedLlm;

beforeAll(async () => {
  redis = await startRedis();
  am = await startAlertmanager({ webhookUrl: 'http://127.0.0.1:9/unused', token: 't' });
  await pushAlerts(am.url, [
    { labels: { alertname: 'DiskFull', service: 'db' }, annotations: { summary: 'disk 95%' } },
  ]);
  // First turn: a call to a tool that does not exist; then the answer.
  llm = await startScriptedLlm((req) =>
    req.messages.some((m) => m.role === 'tool')
      ? { content: 'RCA' }
      : { toolCalls: [{ name: 'missing_tool', arguments: { q: 1 } }] },
  );
}, 60_000);
afterAll(async () => {
  await llm?.close();
  await am?.stop();
  await redis?.stop();
});

describe('tool-call records', () => {
  it('are mapped field by field, and only the error and the output are optional', () => {
    expect(
      toToolCallRecord({ tool: 't', status: 'success', data: 'out', params: { a: 1 }, elapsedMs: 12, truncated: true }),
    ).toEqual({ name: 't', params: { a: 1 }, status: 'success', durationMs: 12, output: 'out' });
    expect(toToolCallRecord({ tool: 't', status: 'error', error: 'boom', params: {}, elapsedMs: 0 })).toEqual({
      name: 't',
      params: {},
      status: 'error',
      durationMs: 0,
      error: 'boom',
    });
  });

  it('keep the output the model saw, capped at OUTPUT_KEEP_CHARS and saying so', () => {
    const long = `${'x'.repeat(OUTPUT_KEEP_CHARS)}tail`;
    const rec = toToolCallRecord({ tool: 't', status: 'success', data: long, params: {}, elapsedMs: 1 });
    expect(rec.output).toBe('x'.repeat(OUTPUT_KEEP_CHARS));
    expect(rec.outputClipped).toBe(true);
    const exact = toToolCallRecord({
      tool: 't',
      status: 'success',
      data: 'y'.repeat(OUTPUT_KEEP_CHARS),
      params: {},
      elapsedMs: 1,
    });
    expect(exact.outputClipped).toBeUndefined();
  });

  it('the API names them name and durationMs, never tool or elapsedMs', async () => {
    const svc = await startTestService(redis.url, { OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: llm.baseUrl });
    try {
      const one = { ...amFixture('group-next').body, alerts: amFixture('group-next').body.alerts.slice(0, 1) };
      const res = await fetch(`${svc.base}/webhooks/alertmanager`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(one),
      });
      const id = ((await res.json()) as { queued: string[] }).queued[0]!;
      const inv = await waitFor('the investigation', async () => {
        const body = (await getJson(`${svc.base}/api/investigations/${id}`)).body;
        return body.status === 'completed' && body;
      });
      expect(inv.toolCalls).toHaveLength(1);
      expect(Object.keys(inv.toolCalls[0]).sort()).toEqual(RECORD_KEYS);
      expect(inv.toolCalls[0]).toMatchObject({
        name: 'missing_tool',
        params: {},
        status: 'error',
        durationMs: expect.any(Number),
      });
    } finally {
      await svc.close();
    }
  });

  it("the CLI's JSON output names them the same", async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'lestrade-cli-')), 'rca.json');
    const r = await runCli(['investigate', 'alertmanager', '--alertmanager-url', am.url, '--json-output-file', out], {
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: llm.baseUrl,
    });
    expect(r.code).toBe(0);
    const [result] = JSON.parse(readFileSync(out, 'utf8'));
    expect(result.toolCalls).toHaveLength(1);
    expect(Object.keys(result.toolCalls[0]).sort()).toEqual(RECORD_KEYS);
    expect(result.toolCalls[0]).toMatchObject({ name: 'missing_tool', status: 'error' });
  });
});
