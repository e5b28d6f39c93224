import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amFixture } from '../helpers/fixtures.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startScriptedLlm, toolResults, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor, type TestService } from '../helpers/service.js';

const BIN = new URL('../../bin/lestrade.js', import.meta.url).pathname;
let redis: TestRedis;
let llm: ScriptedLlm;
let http: TestService;
const children: ChildProcess[] = [];
let hangSecondCall = true;

beforeAll(async () => {
  redis = await startRedis();
  llm = await startScriptedLlm(async (req) => {
    const tools = toolResults(req);
    if (tools.length === 0) return { toolCalls: [{ name: 'say', arguments: { word: 'first-step' } }] };
    if (hangSecondCall) {
      hangSecondCall = false;
      await new Promise(() => {}); // the worker is killed while waiting for this answer
    }
    return { content: `resumed with ${tools.length} tool result: ${String(tools[0]!.result.data).trim()}` };
  });
  http = await startTestService(redis.url, {}, { workers: false });
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await http?.close();
  await llm?.close();
  await redis?.stop();
});

function startWorker(configPath: string): ChildProcess {
  const child = spawn(process.execPath, [BIN, 'worker'], {
    env: { PATH: process.env.PATH ?? '', REDIS_URL: redis.url, OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: llm.baseUrl, LESTRADE_CONFIG: configPath, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  children.push(child);
  return child;
}

describe('a worker that dies mid-investigation', () => {
  it('loses nothing: another worker takes the job over and resumes from the checkpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-crash-'));
    writeFileSync(join(dir, 'say.yaml'), 'name: say\ndescription: says a word\ntools:\n  - name: say\n    description: echo a word\n    params: { word: { type: string } }\n    command: [echo, "{{ word }}"]\n');
    const config = join(dir, 'lestrade.yaml');
    writeFileSync(config, `queue: { lockDurationMs: 1500, stalledIntervalMs: 1000 }\ntoolsets: { dirs: [${JSON.stringify(dir)}] }\n`);

    const first = startWorker(config);
    const body = { ...amFixture('group-next').body, alerts: amFixture('group-next').body.alerts.slice(0, 1) };
    const res = await fetch(`${http.base}/webhooks/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const { queued } = await res.json();
    await waitFor('the first worker to reach its second model call', async () => llm.requests.length >= 2);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    expect((await getJson(`${http.base}/api/investigations/${queued[0]}`)).body.status).toBe('running');

    startWorker(config);
    const done = await waitFor('the investigation to complete', async () => {
      const inv = (await getJson(`${http.base}/api/investigations/${queued[0]}`)).body;
      return inv.status === 'completed' && inv;
    }, 30_000);
    expect(done.rca).toBe('resumed with 1 tool result: first-step');
    expect(done.toolCalls).toEqual([expect.objectContaining({ name: 'say', status: 'success', params: { word: 'first-step' } })]);
    // Only the very first call started from scratch: the second worker began from the checkpoint.
    expect(llm.requests.filter((r) => toolResults(r).length === 0)).toHaveLength(1);
    expect(llm.requests.length).toBe(3);
  }, 60_000);
});
