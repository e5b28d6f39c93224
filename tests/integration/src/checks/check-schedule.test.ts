import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { killAll, spawnLestradeWorker } from '../../../helpers/child-process.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { startScriptedLlm, type ChatRequest, type Reply, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { waitFor } from '../../../helpers/service.js';

/**
 * Scheduling across processes (docs/checks.md#schedules): two `lestrade worker` processes on one Redis run a check
 * once per tick (BullMQ's job scheduler, not a timer per process); after both are killed and one starts again, the
 * ticks missed meanwhile run once, not once each, and nothing runs twice.
 */
let redis: TestRedis;
let admin: Redis;
let llm: ScriptedLlm;
let env: Record<string, string>;
const children: ChildProcess[] = [];

function script(req: ChatRequest): Reply {
  if (req.messages.at(-1)?.role === 'user')
    return { toolCalls: [{ name: 'report_check_result', arguments: { status: 'pass', summary: 'ok', evidence: [] } }] };
  return { content: '## Verdict\npass' };
}

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
  llm = await startScriptedLlm(script);
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-check-schedule-'));
  writeFileSync(
    join(dir, 'lestrade.yaml'),
    [
      'checks:',
      '  - name: checkout',
      '    question: Are all pods of the checkout namespace ready?',
      // Every 2 seconds (a cron pattern with seconds): a test's pace; everySeconds takes 60 at least.
      "    schedule: '*/2 * * * * *'",
    ].join('\n'),
  );
  env = { REDIS_URL: redis.url, LESTRADE_CONFIG: join(dir, 'lestrade.yaml'), OPENAI_BASE_URL: llm.baseUrl };
}, 60_000);
afterAll(async () => {
  await killAll(children);
  admin.disconnect();
  await llm.close();
  await redis.stop();
});

/** Every run of the check so far: its investigation and the tick it was for (ms), oldest first. */
async function runs(): Promise<Array<{ id: string; tick: number }>> {
  const history = (await admin.lrange(keys.checkHistory('checkout'), 0, -1)).map(
    (h) => JSON.parse(h) as { investigationId: string },
  );
  const out = [];
  for (const h of history.reverse()) {
    const identity = (await admin.hget(keys.investigation(h.investigationId), 'identity')) ?? '';
    out.push({ id: h.investigationId, tick: Number(identity.split(':').at(-1)) });
  }
  return out;
}

describe('a scheduled check across worker processes', () => {
  it('runs once per tick with two workers, and once for the ticks missed while both were down', async () => {
    children.push(spawnLestradeWorker(env), spawnLestradeWorker(env));
    await waitFor('four runs', async () => (await runs()).length >= 4, 60_000);
    await killAll(children.splice(0));
    const before = await runs();
    const downAt = Date.now();
    // Two ticks or more come and go with nobody running.
    await new Promise((r) => setTimeout(r, 5_000));
    expect(await runs()).toHaveLength(before.length);
    children.push(spawnLestradeWorker(env));
    const upAt = Date.now();
    await waitFor('runs after the restart', async () => (await runs()).length >= before.length + 2, 60_000);
    await killAll(children.splice(0));
    const all = await runs();

    const ticks = all.map((r) => r.tick);
    expect(ticks.every((t) => Number.isInteger(t) && t % 2000 === 0)).toBe(true);
    // Once per tick: no tick twice, and every run is its own investigation whose model calls were made once.
    expect(new Set(ticks).size).toBe(ticks.length);
    expect(new Set(all.map((r) => r.id)).size).toBe(all.length);
    const firstCalls = llm.requests.filter((r) => r.messages.length === 2).length;
    expect(firstCalls).toBe(all.length);
    // While down: the ticks that came due then ran once altogether after the restart (the overdue one), not each.
    const seen = new Set(before.map((r) => r.tick));
    const missed = ticks.filter((t) => !seen.has(t) && t < upAt);
    expect(missed).toHaveLength(1);
    expect(missed[0]).toBeGreaterThan(downAt - 2000);
    // Ticks while two workers ran: consecutive (2 s apart), none run twice.
    const early = before.map((r) => r.tick);
    for (let i = 1; i < early.length; i++) expect(early[i]! - early[i - 1]!).toBeGreaterThanOrEqual(2000);
  }, 180_000);
});
