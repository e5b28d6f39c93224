import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKLOG_STATE, QUEUE_STATES, SharedStateReader } from '../../../../src/exporter/shared-state.js';
import { keys } from '../../../../src/redis/keys.js';
import { EXPIRY_QUEUE_NAME, QUEUE_NAME, WRITE_BACK_QUEUE_NAME } from '../../../../src/redis/queue-names.js';
import { type ExpiryJobData, type InvestigationJobData } from '../../../../src/redis/job-data.js';
import { redisClient } from '../../../helpers/redis-client.js';

// What /metrics reports alike from every process, read from a real Redis: queue counts per state, the
// dispatch backlog, pauses still waiting for a human, and runs a budget holds back.

const db = redisClient();
const T = Date.parse('2026-12-02T10:00:00Z');
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((q) => q.close()));
});

function reader(now = () => T): SharedStateReader {
  const r = new SharedStateReader(db.client, now);
  opened.push(r);
  return r;
}
function queue<D>(name: string): Queue<D> {
  const q = new Queue<D>(name, { connection: db.client, prefix: keys.queuePrefix });
  opened.push(q);
  return q;
}
/** A record in the given state, paused on pause `seq` (approvals hash), optionally expired. */
async function paused(id: string, status: Record<string, string>, seq: number, expired = false): Promise<void> {
  await db.client.hset(keys.investigation(id), status);
  await db.client.hset(keys.approvals(id), { seq: String(seq), ...(expired ? { expired: '1' } : {}) });
}

const count = (s: Awaited<ReturnType<SharedStateReader['read']>>, queueName: string, state: string) =>
  s.queues.find((q) => q.queue === queueName && q.state === state)?.count;

describe('SharedStateReader', () => {
  it('reports every state of every queue and the backlog as zero, and no pending approval, on an empty Redis', async () => {
    const s = await reader().read();
    expect(s.queues).toHaveLength(3 * QUEUE_STATES.length + 1);
    expect(s.queues.every((q) => q.count === 0)).toBe(true);
    expect(s.queues.at(-1)).toEqual({ queue: QUEUE_NAME, state: BACKLOG_STATE, count: 0 });
    for (const name of [QUEUE_NAME, WRITE_BACK_QUEUE_NAME, EXPIRY_QUEUE_NAME])
      expect(s.queues.filter((q) => q.queue === name && q.state !== BACKLOG_STATE).map((q) => q.state)).toEqual([
        ...QUEUE_STATES,
      ]);
    expect(s).toMatchObject({ approvalsPending: 0, oldestApprovalSeconds: null, budgetHeld: 0 });
    expect(s).not.toHaveProperty('llmLimit');
  });

  it('counts jobs per queue and state, and the claimed investigations not yet handed to BullMQ', async () => {
    const inv = queue<InvestigationJobData>(QUEUE_NAME);
    await inv.add('investigate', { investigationId: 'w1' });
    await inv.add('investigate', { investigationId: 'w2' });
    await inv.add('investigate', { investigationId: 'd1' }, { delay: 60_000 });
    await queue<{ id: string }>(WRITE_BACK_QUEUE_NAME).add('write', { id: 'x' });
    await db.client.zadd(keys.dispatch(), 1, 'b1', 2, 'b2', 3, 'b3');
    const s = await reader().read();
    expect(count(s, QUEUE_NAME, 'waiting')).toBe(2);
    expect(count(s, QUEUE_NAME, 'delayed')).toBe(1);
    expect(count(s, WRITE_BACK_QUEUE_NAME, 'waiting')).toBe(1);
    expect(count(s, EXPIRY_QUEUE_NAME, 'waiting')).toBe(0);
    expect(count(s, QUEUE_NAME, BACKLOG_STATE)).toBe(3);
  });

  it('counts a pause as pending only while its record awaits approval on that pause and it has not expired', async () => {
    const expiry = queue<ExpiryJobData>(EXPIRY_QUEUE_NAME);
    const pause = (investigationId: string, seq: number, phase: 'investigation' | 'ask', at: number) =>
      expiry.add('expire', { investigationId, phase, seq }, { delay: 600_000, timestamp: at });
    await paused('waits', { status: 'awaiting_approval' }, 2);
    await pause('waits', 2, 'investigation', T - 90_000);
    await paused('asks', { status: 'completed', askStatus: 'awaiting_approval' }, 1);
    await pause('asks', 1, 'ask', T - 30_000);
    await paused('decided', { status: 'queued' }, 1);
    await pause('decided', 1, 'investigation', T - 500_000);
    await paused('expired', { status: 'awaiting_approval' }, 1, true);
    await pause('expired', 1, 'investigation', T - 500_000);
    await paused('older-pause', { status: 'awaiting_approval' }, 3);
    await pause('older-pause', 2, 'investigation', T - 500_000);
    await paused('ask-done', { status: 'awaiting_approval', askStatus: 'completed' }, 1);
    await pause('ask-done', 1, 'ask', T - 500_000);
    const s = await reader().read();
    expect(s.approvalsPending).toBe(2);
    expect(s.oldestApprovalSeconds).toBe(90);
  });

  it('never reports a negative wait when the clock reads earlier than the pause', async () => {
    await paused('p', { status: 'awaiting_approval' }, 1);
    await queue<ExpiryJobData>(EXPIRY_QUEUE_NAME).add(
      'expire',
      { investigationId: 'p', phase: 'investigation', seq: 1 },
      { delay: 600_000, timestamp: T + 5_000 },
    );
    expect((await reader().read()).oldestApprovalSeconds).toBe(0);
  });

  it('counts delayed investigations whose record says a budget holds them, and no other delayed job', async () => {
    const inv = queue<InvestigationJobData>(QUEUE_NAME);
    await db.client.hset(keys.investigation('held'), { waitingReason: 'budget:daily tokens' });
    await db.client.hset(keys.investigation('held-too'), { waitingReason: 'budget:hourly runs' });
    await db.client.hset(keys.investigation('rate'), { waitingReason: 'rate limit of the model' });
    await db.client.hset(keys.investigation('plain'), { status: 'queued' });
    for (const id of ['held', 'held-too', 'rate', 'plain', 'gone'])
      await inv.add('investigate', { investigationId: id }, { delay: 60_000 });
    await db.client.hset(keys.investigation('waiting'), { waitingReason: 'budget:daily tokens' });
    await inv.add('investigate', { investigationId: 'waiting' });
    expect((await reader().read()).budgetHeld).toBe(2);
  });
});
