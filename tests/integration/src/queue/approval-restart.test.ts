import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../helpers/free-port.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { deliverOne, postJson, runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, toolResults, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { killAll } from '../../../helpers/child-process.js';
import { waitFor } from '../../../helpers/service.js';

const BIN = new URL('../../../../bin/lestrade.js', import.meta.url).pathname;
let redis: TestRedis;
let llm: ScriptedLlm;
const children: ChildProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  llm = await startScriptedLlm((req) =>
    toolResults(req).length === 0
      ? { toolCalls: [{ id: 'c-restart', name: 'restart', arguments: { name: 'api' } }] }
      : { content: `after restart: ${String(toolResults(req)[0]!.result.status)}` },
  );
});
afterAll(async () => {
  await killAll(children);
  await llm?.close();
  await redis?.stop();
});

async function serve(config: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      LESTRADE_FROM_SOURCE: '1',
      REDIS_URL: redis.url,
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: llm.baseUrl,
      LESTRADE_CONFIG: config,
      LOG_LEVEL: 'warn',
      PORT: String(port),
      HOST: '127.0.0.1',
      ALERTMANAGER_ALLOW_UNAUTHENTICATED: 'true',
    },
    stdio: 'ignore',
  });
  children.push(child);
  await waitFor('lestrade serve to listen', async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 20_000);
  return child;
}

describe('an investigation awaiting approval', () => {
  it('survives the process being killed: another process takes the decision and resumes it', async () => {
    const rt = runtimeConfig();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = await serve(rt.config, port);
    const id = await deliverOne(base);
    await statusIs(base, id, ['awaiting_approval']);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));

    await serve(rt.config, port);
    const waiting = await statusIs(base, id, ['awaiting_approval']);
    expect(waiting.approvals.pending).toEqual([expect.objectContaining({ toolCallId: 'c-restart', tool: 'restart' })]);
    expect(
      (
        await postJson(`${base}/api/investigations/${id}/approvals`, {
          decisions: [{ toolCallId: 'c-restart', approved: true }],
        })
      ).status,
    ).toBe(202);
    const done = await statusIs(base, id, ['completed', 'failed'], 20_000);
    expect(done).toMatchObject({ status: 'completed', rca: 'after restart: no_data' });
    expect(existsSync(rt.marker('api'))).toBe(true);
    expect(llm.requests).toHaveLength(2);
  }, 60_000);
});
