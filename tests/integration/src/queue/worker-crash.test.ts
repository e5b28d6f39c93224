import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amFixture } from '../../../helpers/fixtures.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { startScriptedLlm, toolResults, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { killAll, spawnLestradeWorker } from '../../../helpers/child-process.js';
import { getJson, startTestService, waitFor, type TestService } from '../../../helpers/service.js';

let redis: TestRedis;
let llm: ScriptedLlm;
let http: TestService;
const children: ChildProcess[] = [];
let hangSecondCall = true;

beforeAll(async () => {
  redis = await startRedis();
  llm = await startScriptedLlm(async (req) => {
    if (req.messages[1]?.content?.includes('HangsForever')) await new Promise(() => {}); // every worker dies waiting
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
  await stopWorkers();
  await http?.close();
  await llm?.close();
  await redis?.stop();
});

async function stopWorkers() {
  await killAll(children.splice(0));
}

function startWorker(configPath: string): ChildProcess {
  const child = spawnLestradeWorker({
    REDIS_URL: redis.url,
    OPENAI_BASE_URL: llm.baseUrl,
    LESTRADE_CONFIG: configPath,
  });
  children.push(child);
  return child;
}

describe('a worker that dies mid-investigation', () => {
  it('loses nothing: another worker takes the job over and resumes from the checkpoint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-crash-'));
    writeFileSync(
      join(dir, 'say.yaml'),
      'name: say\ndescription: says a word\ntools:\n  - name: say\n    description: echo a word\n    params: { word: { type: string } }\n    command: [echo, "{{ word }}"]\n',
    );
    const config = join(dir, 'lestrade.yaml');
    writeFileSync(
      config,
      `queue: { lockDurationMs: 1500, stalledIntervalMs: 1000 }\ntoolsets: { dirs: [${JSON.stringify(dir)}] }\n`,
    );

    const first = startWorker(config);
    const body = { ...amFixture('group-next').body, alerts: amFixture('group-next').body.alerts.slice(0, 1) };
    const res = await fetch(`${http.base}/webhooks/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const { queued } = await res.json();
    await waitFor('the first worker to reach its second model call', async () => llm.requests.length >= 2);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    expect((await getJson(`${http.base}/api/investigations/${queued[0]}`)).body.status).toBe('running');

    startWorker(config);
    const done = await waitFor(
      'the investigation to complete',
      async () => {
        const inv = (await getJson(`${http.base}/api/investigations/${queued[0]}`)).body;
        return inv.status === 'completed' && inv;
      },
      30_000,
    );
    expect(done.rca).toBe('resumed with 1 tool result: first-step');
    expect(done.toolCalls).toEqual([
      expect.objectContaining({ name: 'say', status: 'success', params: { word: 'first-step' } }),
    ]);
    // Only the very first call started from scratch: the second worker began from the checkpoint.
    expect(llm.requests.filter((r) => toolResults(r).length === 0)).toHaveLength(1);
    expect(llm.requests.length).toBe(3);
  }, 60_000);

  it('fails the record with the reason when BullMQ fails a job that stalled too often, bypassing the handler', async () => {
    await stopWorkers(); // the previous test's worker would take the job over too
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-stall-'));
    const config = join(dir, 'lestrade.yaml');
    writeFileSync(config, 'queue: { lockDurationMs: 1500, stalledIntervalMs: 1000 }\n');
    const alert: Record<string, unknown> = {
      ...amFixture('group-next').body.alerts[0]!,
      fingerprint: '0123456789abcdef',
    };
    alert.labels = { ...(alert.labels as Record<string, string>), alertname: 'HangsForever' };
    const body = { ...amFixture('group-next').body, alerts: [alert] };
    const hung = () => llm.requests.filter((r) => r.messages[1]?.content?.includes('HangsForever')).length;
    const { queued } = await (
      await fetch(`${http.base}/webhooks/alertmanager`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json();
    for (let i = 1; i <= 2; i++) {
      const worker = startWorker(config);
      // A worker child starts from the sources (tsx): on a loaded 2-core machine that alone can take 15 s.
      await waitFor(`worker ${i} to take the job`, async () => hung() >= i, 40_000);
      worker.kill('SIGKILL');
      await new Promise((r) => worker.once('exit', r));
    }
    startWorker(config); // finds the job stalled more than maxStalledCount allows; BullMQ fails it
    const inv = await waitFor(
      'the record to end',
      async () => {
        const body = (await getJson(`${http.base}/api/investigations/${queued[0]}`)).body;
        return body.status !== 'running' && body.status !== 'queued' && body;
      },
      20_000,
    );
    expect(inv).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/stalled more than allowable limit/),
      finishedAt: expect.any(String),
    });
  }, 120_000);
});
