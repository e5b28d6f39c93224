import { Queue } from 'bullmq';
import { afterEach, describe, expect, it } from 'vitest';
import { LlmRateLimiter, realClock } from '../../../../src/llm/rate-limiter.js';
import { SCAN_LIMIT, SharedStateReader } from '../../../../src/exporter/shared-state.js';
import { keys } from '../../../../src/redis/keys.js';
import { EXPIRY_QUEUE_NAME, QUEUE_NAME } from '../../../../src/redis/queue-names.js';
import { type ExpiryJobData, type InvestigationJobData } from '../../../../src/redis/job-data.js';
import { redisClient } from '../../../helpers/redis-client.js';

// The bounds of a scrape (at most SCAN_LIMIT delayed jobs looked at per queue), the model's rate limit
// when an LLM is configured, and a reader that leaves the shared connection as it found it.

const db = redisClient();
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((q) => q.close()));
});

function queue<D>(name: string): Queue<D> {
  const q = new Queue<D>(name, { connection: db.client, prefix: keys.queuePrefix });
  opened.push(q);
  return q;
}

describe('SharedStateReader', () => {
  it('looks at no more than SCAN_LIMIT delayed jobs of each queue per scrape', async () => {
    const n = SCAN_LIMIT + 2;
    const ids = Array.from({ length: n }, (_, i) => `inv-${i}`);
    const records = db.client.pipeline();
    for (const id of ids) {
      records.hset(keys.investigation(id), { status: 'awaiting_approval', waitingReason: 'budget: daily' });
      records.hset(keys.approvals(id), { seq: '1' });
    }
    await records.exec();
    await queue<ExpiryJobData>(EXPIRY_QUEUE_NAME).addBulk(
      ids.map((id) => ({
        name: 'expire',
        data: { investigationId: id, phase: 'investigation', seq: 1 },
        opts: { delay: 60_000 },
      })),
    );
    await queue<InvestigationJobData>(QUEUE_NAME).addBulk(
      ids.map((id) => ({ name: 'investigate', data: { investigationId: id }, opts: { delay: 60_000 } })),
    );
    const r = new SharedStateReader(db.client);
    opened.push(r);
    expect(await r.read()).toMatchObject({ approvalsPending: SCAN_LIMIT, budgetHeld: SCAN_LIMIT });
  });

  it("reports the model's rate limit as its limiter sees it", async () => {
    const limiter = new LlmRateLimiter(
      db.client,
      'gpt-test',
      { requestsPerMinute: 60, tokensPerMinute: 1000 },
      {
        ...realClock,
        now: () => Date.parse('2026-12-03T07:00:00Z'),
      },
    );
    const r = new SharedStateReader(db.client, Date.now, limiter);
    opened.push(r);
    const { llmLimit } = await r.read();
    expect(llmLimit).toEqual(await limiter.snapshot());
    expect(llmLimit).toMatchObject({ model: 'gpt-test', requestsUsed: 0, tokensUsed: 0 });
  });

  it('closes its queues, leaving no listener of theirs on the shared connection', async () => {
    const before = db.client.eventNames().map((e) => [e, db.client.listenerCount(e)]);
    const r = new SharedStateReader(db.client);
    await r.read();
    expect(db.client.eventNames().map((e) => [e, db.client.listenerCount(e)])).not.toEqual(before);
    await r.close();
    expect(db.client.eventNames().map((e) => [e, db.client.listenerCount(e)])).toEqual(before);
  });
});
