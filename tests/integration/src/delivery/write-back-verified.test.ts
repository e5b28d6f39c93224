/**
 * A verified remediation is said where the team looks, in place: the source's comment is edited (not a second one)
 * to carry the verification line, through DeliveryQueue.verified and the real delivery worker on a real Redis.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryDeps } from '../../../../src/delivery/delivery-deps.js';
import { DeliveryQueue } from '../../../../src/delivery/delivery-queue.js';
import { startDeliveryWorker } from '../../../../src/delivery/delivery-worker.js';
import { runWriteBack } from '../../../../src/delivery/run-write-back.js';
import { createLogger } from '../../../../src/log.js';
import type { RemediationVerification } from '../../../../src/records/remediation.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { anIssue } from '../../../helpers/issue.js';
import { RecordingWriter } from '../../../helpers/recording-writer.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { waitFor } from '../../../helpers/service.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';

let redis: TestRedis;
let conn: Redis;
let store: InvestigationStore;
let writer: RecordingWriter;
const verification: RemediationVerification = {
  status: 'mitigated',
  checkedAt: '2026-12-07T10:05:00.000Z',
  evidence: 'the issue resolved 3 min after the restart of deployment/web approved by alice',
};

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
});

/**
 * The record as the remediation log (rem-rails, merged separately) will return it: the store's record with its
 * `remediation` list. Until that lands the list is added here, around the real store.
 */
function withRemediation(verified: boolean): DeliveryDeps['store'] {
  return Object.assign(Object.create(store) as InvestigationStore, {
    get: async (id: string) => {
      const inv = await store.get(id);
      return (
        inv && {
          ...inv,
          remediation: [{ appliedAt: '2026-12-07T10:02:00.000Z', verification: verified ? verification : null }],
        }
      );
    },
  });
}

describe('a verified remediation on the write-back', () => {
  it('edits the one comment in place to say it, once however often it is asked', async () => {
    const issue = anIssue('OPS-7', { locator: { key: 'OPS-7', ref: { issueKey: 'OPS-7' } } });
    const { id } = await claimIssue(store, issue);
    await runsOf(store).complete(id, {
      rca: '## Root cause\nweb leaks memory',
      toolCalls: [],
      usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 },
      linkHosts: [],
    });
    const log = createLogger('silent');
    const deps: DeliveryDeps = {
      redis: conn,
      store: withRemediation(true),
      writers: new Map([['tickets', writer]]),
      destinations: new Map(),
      log,
      retentionSeconds: 3600,
    };
    expect(await runWriteBack(id, 1, false, { ...deps, store: withRemediation(false) })).toBe('written');
    expect(writer.comments[0]!.body).not.toContain('Checked after the fix');
    const queue = new DeliveryQueue(
      conn,
      store,
      { writers: { has: (s) => s === 'tickets' }, router: { route: () => [] } },
      { attempts: 3, backoffMs: 100, retentionSeconds: 3600 },
    );
    const workerConn = new Redis(redis.url, { maxRetriesPerRequest: null });
    const worker = startDeliveryWorker(workerConn, deps, { concurrency: 1, backoffMs: 100, linkedPollMs: 100 });
    try {
      const inv = (await store.get(id))!;
      await queue.verified(inv, 'call:1');
      await queue.verified(inv, 'call:1');
      await waitFor(
        'the comment edited with the verification',
        async () =>
          ((await store.get(id))!.writeBacks[0]!.status === 'written' &&
            writer.comments[0]!.body.includes('Mitigated')) ||
          null,
      );
      expect(writer.comments).toHaveLength(1);
      expect(writer.comments[0]!.body).toContain(
        '- Mitigated: the issue resolved 3 min after the restart of deployment/web approved by alice',
      );
      expect(writer.comments[0]!.body).toContain('web leaks memory');
    } finally {
      await worker.close();
      await queue.close();
      workerConn.disconnect();
    }
  });
});
