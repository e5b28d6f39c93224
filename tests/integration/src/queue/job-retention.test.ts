import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_NAME, QUEUE_PREFIX, WRITE_BACK_QUEUE_NAME } from '../../../../src/redis/queue-names.js';
import { writeBackJobId } from '../../../../src/redis/job-data.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { DeliveryQueue } from '../../../../src/delivery/delivery-queue.js';
import { amFixture } from '../../../helpers/fixtures.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { startTestService, waitFor } from '../../../helpers/service.js';
import { anIssue } from '../../../helpers/issue.js';
import { claimIssue } from '../../../helpers/store-paths.js';

// Finished BullMQ jobs are kept as long as records, queue.retentionSeconds, whatever it is set to.

let redis: TestRedis;
let conn: Redis;

beforeAll(async () => {
  redis = await startRedis();
  conn = new Redis(redis.url, { maxRetriesPerRequest: null });
});
afterAll(async () => {
  conn.disconnect();
  await redis.stop();
});

describe('BullMQ job retention', () => {
  it('of investigation jobs follows queue.retentionSeconds from the configuration', async () => {
    const config = join(mkdtempSync(join(tmpdir(), 'lestrade-cfg-')), 'lestrade.yaml');
    writeFileSync(config, 'queue: { retentionSeconds: 777, attempts: 4, backoffMs: 1234 }\n');
    const svc = await startTestService(redis.url, { LESTRADE_CONFIG: config });
    const queue = new Queue(QUEUE_NAME, { connection: conn, prefix: QUEUE_PREFIX });
    try {
      const res = await fetch(`${svc.base}/webhooks/alertmanager`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(amFixture('group-next').body),
      });
      const { queued } = (await res.json()) as { queued: string[] };
      expect(queued).toHaveLength(2);
      for (const id of queued) {
        // Jobs are added by the dispatcher just after the answer.
        const job = await waitFor(`job ${id}`, () => queue.getJob(id));
        expect(job.opts).toMatchObject({
          attempts: 4,
          backoff: { type: 'retry-after', delay: 1234 },
          removeOnComplete: { age: 777 },
          removeOnFail: { age: 777 },
        });
      }
    } finally {
      await queue.close();
      await svc.close();
    }
  });

  it('of write-back jobs follows the retention it is given', async () => {
    const store = new InvestigationStore(conn, { dedupTtlSeconds: 60, retentionSeconds: 60 });
    const wb = new DeliveryQueue(
      conn,
      store,
      { writers: new Set(['tickets']), router: { route: () => [] } },
      { attempts: 3, backoffMs: 99, retentionSeconds: 4321 },
    );
    const queue = new Queue(WRITE_BACK_QUEUE_NAME, { connection: conn, prefix: QUEUE_PREFIX });
    try {
      const { id } = await claimIssue(
        store,
        anIssue('OPS-1', {
          sourceInstance: 't',
          title: 't',
          severity: 'high',
          startedAt: '2026-01-01T00:00:00Z',
          locator: { key: 'OPS-1', ref: { key: 'OPS-1' } },
        }),
      );
      await wb.completed((await store.get(id))!);
      const job = await queue.getJob(writeBackJobId(id));
      expect(job!.opts).toMatchObject({
        attempts: 3,
        backoff: { type: 'retry-after', delay: 99 },
        removeOnComplete: { age: 4321 },
        removeOnFail: { age: 4321 },
      });
    } finally {
      await queue.close();
      await wb.close();
    }
  });
});
