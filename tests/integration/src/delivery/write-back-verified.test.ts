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
import type { RemediationEntry, RemediationVerification } from '../../../../src/records/remediation.js';
import { recordRemediation, setVerification } from '../../../../src/store/remediation-log.js';
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

/** The remediation[] entry of the restart, as the rails record it once the approved call ran. */
const restart = (): RemediationEntry => ({
  toolCallId: 'call:1',
  appliedId: 'job/1:call:1',
  tool: 'kubectl_rollout_restart',
  params: { kind: 'deployment', namespace: 'shop', name: 'web' },
  workload: { kind: 'deployment', namespace: 'shop', name: 'web' },
  approvedBy: { via: 'slack', user: 'U1', name: 'alice' },
  appliedAt: '2026-12-07T10:02:00.000Z',
  result: 'applied',
  output: '{}',
});

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
      store,
      writers: new Map([['tickets', writer]]),
      destinations: new Map(),
      log,
      retentionSeconds: 3600,
    };
    await recordRemediation(conn, id, restart());
    expect(await runWriteBack(id, 1, false, deps)).toBe('written');
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
      expect(await setVerification(conn, id, 'call:1', verification)).toBe(true);
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
