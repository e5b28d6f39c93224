import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../../../../src/memory/memory-record.js';
import { MemoryStore } from '../../../../src/memory/memory-store.js';
import { createWorkerRedis, type RedisClient } from '../../../../src/redis/redis-connections.js';
import { keysOf } from '../../../../src/redis/keys.js';
import { startRedisCluster, type TestRedisCluster } from '../../../helpers/redis-cluster.js';

// Memory on a real three-master Redis Cluster: its scripts and MGETs name keys of one slot only.
let cluster: TestRedisCluster;
let client: RedisClient;

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  client = createWorkerRedis(cluster.url, undefined, 'memcluster');
}, 120_000);
afterAll(async () => {
  client?.disconnect();
  await cluster?.stop();
});

const rec = (n: number, over: Partial<MemoryRecord> = {}): MemoryRecord => ({
  investigationId: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  source: 'alertmanager',
  fingerprint: `fp-${n}`,
  alertName: 'TargetDown',
  labels: { namespace: 'monitoring', job: 'node-exporter', cluster: 'eu' },
  title: 'TargetDown: 10% of the node-exporter targets are down.',
  rootCause: 'A NetworkPolicy blocks the scrapes.',
  rootCauseBy: 'rca',
  verdict: null,
  at: new Date(Date.now() - n * 60_000).toISOString(),
  ...over,
});

describe('MemoryStore on a Redis Cluster', { timeout: 120_000 }, () => {
  it('remembers, finds, records a verdict and forgets, every key in the namespace slot', async () => {
    const store = new MemoryStore(client, keysOf(client), { retentionDays: 365, minScore: 0.75, maxSimilar: 3 });
    for (const n of [1, 2, 3]) await store.remember(rec(n));
    await store.remember(rec(4, { labels: { namespace: 'monitoring', job: 'kube-state-metrics', cluster: 'eu' } }));
    await store.remember(rec(5, { alertName: undefined, source: 'jira', title: 'Node exporter targets down' }));
    const query = { ...rec(9), labels: rec(9).labels };
    const found = await store.findSimilar(query);
    expect(found.map((f) => f.id)).toEqual([rec(1), rec(2), rec(3)].map((r) => r.investigationId));
    expect(
      await store.setVerdict(rec(2).investigationId, { verdict: 'wrong', rootCause: 'Disk full.', by: 'bob' }),
    ).toBe(true);
    expect(await store.forget(rec(1).investigationId)).toBe(true);
    const after = await store.findSimilar(query);
    expect(after.map((f) => [f.id, f.verdict])).toEqual([
      [rec(2).investigationId, 'wrong'],
      [rec(3).investigationId, null],
    ]);
    const keys = keysOf(client);
    const slots = new Set(
      await Promise.all(
        [
          keys.memoryRecord(rec(1).investigationId),
          keys.memoryTimeline(),
          keys.memoryIndex('fp', 'x'),
          keys.memoryIndex('word', 'y'),
        ].map((k) => client.cluster('KEYSLOT', k)),
      ),
    );
    expect(slots.size).toBe(1);
  });
});
