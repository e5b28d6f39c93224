import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createLogger } from '../../../../src/log.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { runWriteBack } from '../../../../src/delivery/run-write-back.js';
import type { DeliveryDeps } from '../../../../src/delivery/delivery-deps.js';
import { RecordingWriter } from '../../../helpers/recording-writer.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';
import { anIssue } from '../../../helpers/issue.js';

// The write-back job carries what memory found into the comment (docs/memory-use.md): "Seen before" for a
// confirmed similar incident, and a reused RCA said as such.

let redis: TestRedis;
let conn: Redis;
let store: InvestigationStore;
let writer: RecordingWriter;
let deps: DeliveryDeps;
const PAST = '0aaaaaaa-1111-4222-8333-444444444444';

beforeAll(async () => {
  redis = await startRedis();
  conn = new Redis(redis.url, { maxRetriesPerRequest: null });
});
afterAll(async () => {
  conn.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await conn.flushall();
  store = new InvestigationStore(conn, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
  writer = new RecordingWriter();
  deps = {
    redis: conn,
    store,
    writers: new Map([['tickets', writer]]),
    destinations: new Map(),
    log: createLogger('silent'),
    retentionSeconds: 3600,
    publicUrl: 'https://lestrade.example',
  };
});

async function completedWithMemory(verdict: 'correct' | 'wrong', reused: boolean): Promise<string> {
  const { id } = await claimIssue(
    store,
    anIssue('OPS-7', { locator: { key: 'OPS-7', ref: { issueKey: 'OPS-7' } }, url: 'https://tickets.test/OPS-7' }),
  );
  await store.saveMemoryUse(id, {
    similar: [
      {
        id: PAST,
        title: 'Checkout is slow',
        at: '2026-12-01T09:00:00.000Z',
        score: 0.92,
        verdict,
        rootCause: 'The connection pool is too small for the new traffic. @oncall',
        rootCauseBy: 'rca',
        confirmedBy: 'alice',
        sameFingerprint: true,
      },
    ],
    reused: reused ? { from: PAST } : null,
  });
  await runsOf(store).complete(id, {
    rca: '## Root cause\nThe pool is too small.',
    toolCalls: [],
    usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 },
  });
  return id;
}

describe('the written comment and memory', () => {
  it('ends with "Seen before" and its link when a similar incident was confirmed correct', async () => {
    const id = await completedWithMemory('correct', false);
    expect(await runWriteBack(id, 1, false, deps)).toBe('written');
    const body = writer.comments[0]!.body;
    expect(body).toContain(
      '**Seen before:** 1 time, last 2026-12-01 — The connection pool is too small for the new traffic. @\u200boncall ' +
        `(confirmed by alice) · [past investigation](<https://lestrade.example/investigations/${PAST}>)`,
    );
    expect(body).not.toContain('reused from');
  });

  it('says nothing of memory when the similar one was marked wrong; says a reused RCA is reused', async () => {
    const wrong = await completedWithMemory('wrong', false);
    await runWriteBack(wrong, 1, false, deps);
    expect(writer.comments[0]!.body).not.toContain('Seen before');
    await conn.flushall();
    writer = new RecordingWriter();
    deps.writers = new Map([['tickets', writer]]);
    const reused = await completedWithMemory('correct', true);
    await runWriteBack(reused, 1, false, deps);
    expect(writer.comments[0]!.body).toContain(
      `This analysis is reused from investigation ${PAST}, whose analysis of the same alert people confirmed correct: ` +
        `no model ran for this one. To investigate it afresh, re-run it (the Re-run button, or lestrade rerun ${reused}).`,
    );
  });
});
