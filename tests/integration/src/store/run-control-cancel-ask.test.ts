import { beforeEach, describe, expect, it } from 'vitest';
import { createRedactor } from '../../../../src/redact.js';
import type { ConversationEntry } from '../../../../src/store/investigation.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { keys } from '../../../../src/redis/keys.js';
import { RunControl } from '../../../../src/store/run-control.js';
import { redisClient } from '../../../helpers/redis-client.js';
import { ticketIssue as issue } from '../../../helpers/ticket-issue.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';

// Cancelling a run, asking follow-ups, and conditional updates, on real Redis.

const SECRET = 'sk-run-control-secret';
const db = redisClient();
let store: InvestigationStore;
let runs: RunControl;

const usage = { promptTokens: 1, completionTokens: 1, llmCalls: 1 };
const entry = (question: string, status: ConversationEntry['status']): ConversationEntry => ({
  question,
  answer: status === 'answered' ? 'a' : null,
  status,
  askedAt: '2026-11-30T00:00:00.000Z',
  answeredAt: null,
  error: null,
});

beforeEach(async () => {
  store = new InvestigationStore(db.client, { dedupTtlSeconds: 100, retentionSeconds: 200 }, createRedactor([SECRET]));
  runs = new RunControl(db.client, 200, createRedactor([SECRET]));
});

async function completed(identity = 'a'): Promise<string> {
  const { id } = await claimIssue(store, issue(identity));
  await runsOf(store).complete(id, { rca: 'r', toolCalls: [], usage });
  return id;
}

describe('cancel', () => {
  it('cancels a queued, running or waiting investigation, finishing it and starting its retention', async () => {
    for (const status of ['queued', 'running', 'awaiting_approval']) {
      const { id } = await claimIssue(store, issue(status));
      await db.client.hset(keys.investigation(id), 'status', status);
      expect(await runs.cancel(id)).toEqual({ phase: 'investigation', previous: status });
      const inv = (await store.get(id))!;
      expect(inv).toMatchObject({ status: 'cancelled', finishedAt: expect.any(String) });
      expect(inv.updatedAt).toBe(inv.finishedAt);
      expect(await db.client.ttl(keys.investigation(id))).toBeGreaterThan(190);
    }
  });

  it('cancels the follow-up of a completed investigation, which stays completed', async () => {
    const id = await completed();
    await runs.ask(id, [], 'why?');
    expect(await db.client.ttl(keys.investigation(id))).toBe(-1);
    expect(await runs.cancel(id)).toEqual({ phase: 'ask', previous: 'queued' });
    const inv = (await store.get(id))!;
    expect(inv).toMatchObject({
      status: 'completed',
      conversation: [expect.objectContaining({ status: 'cancelled' })],
    });
    expect(await db.client.ttl(keys.investigation(id))).toBeGreaterThan(190);
  });

  it('says what the status is when nothing is active, and leaves the record alone', async () => {
    const id = await completed();
    expect(await runs.cancel(id)).toEqual({ phase: null, status: 'completed' });
    expect((await store.get(id))!.status).toBe('completed');
    await runs.ask(id, [], 'q');
    await runs.begin(id, 'ask', 1, 'q1');
    await runs.settleAsk(id, 'answer', {});
    expect(await runs.cancel(id)).toEqual({ phase: null, status: 'completed' });
    expect(await runs.cancel('00000000-0000-4000-8000-000000000000')).toEqual({ phase: null, status: '' });
  });
});

describe('ask', () => {
  it('queues a question on a completed investigation, kept as long as it runs', async () => {
    const id = await completed();
    expect(await runs.ask(id, [entry('first', 'answered')], `and ${SECRET}?`)).toEqual({ outcome: 'ok', entry: 1 });
    const inv = (await store.get(id))!;
    expect(inv.conversation).toEqual([
      entry('first', 'answered'),
      {
        question: 'and [redacted]?',
        answer: null,
        status: 'queued',
        askedAt: expect.any(String),
        answeredAt: null,
        error: null,
      },
    ]);
    expect(inv.updatedAt).toBe(inv.conversation[1]!.askedAt);
    expect(await db.client.ttl(keys.investigation(id))).toBe(-1);
  });

  it('refuses a second question while one is queued, running or waiting, and any on an unfinished investigation', async () => {
    const id = await completed();
    await runs.ask(id, [], 'one');
    for (const status of ['queued', 'running', 'awaiting_approval']) {
      await db.client.hset(keys.investigation(id), 'askStatus', status);
      expect(await runs.ask(id, [], 'two')).toEqual({ outcome: 'busy', status });
    }
    for (const status of ['answered', 'failed', 'cancelled']) {
      await db.client.hset(keys.investigation(id), 'askStatus', status);
      expect((await runs.ask(id, [], 'three')).outcome).toBe('ok');
    }
    const { id: queued } = await claimIssue(store, issue('q'));
    expect(await runs.ask(queued, [], 'q')).toEqual({ outcome: 'not_completed', status: 'queued' });
    expect(await runs.ask('00000000-0000-4000-8000-000000000000', [], 'q')).toEqual({
      outcome: 'not_completed',
      status: '',
    });
  });

  it('shows the last question with the live status of its run; earlier and settled ones as they were', async () => {
    const id = await completed();
    await runs.ask(id, [entry('a', 'answered'), entry('b', 'failed')], 'c');
    await runs.begin(id, 'ask', 1, 'q1');
    expect((await store.get(id))!.conversation.map((e) => e.status)).toEqual(['answered', 'failed', 'running']);
    const settled = [entry('a', 'answered'), entry('b', 'queued'), entry('c', 'failed')];
    const setConversation = (c: ConversationEntry[]) =>
      db.client.hset(keys.investigation(id), 'conversation', JSON.stringify(c));
    await setConversation(settled);
    expect((await store.get(id))!.conversation.map((e) => e.status)).toEqual(['answered', 'queued', 'failed']);
    await setConversation([entry('a', 'answered'), entry('b', 'queued')]);
    expect((await store.get(id))!.conversation.map((e) => e.status)).toEqual(['answered', 'running']);
    await setConversation([entry('a', 'answered')]);
    expect((await store.get(id))!.conversation.map((e) => e.status)).toEqual(['answered']);
  });
});

describe('settleAsk', () => {
  it("settles a running follow-up as the table says, with redacted fields, leaving the investigation's status", async () => {
    const id = await completed();
    await runs.ask(id, [], 'q');
    expect(await runs.settleAsk(id, 'answer', { error: 'x' })).toBe(false);
    expect((await store.get(id))!.error).toBeNull();
    await runs.begin(id, 'ask', 1, 'q1');
    const fields = {
      error: `leaked ${SECRET}`,
      conversation: JSON.stringify([{ ...entry('q', 'queued'), answer: 'lone \ud800' }]),
    };
    expect(await runs.settleAsk(id, 'answer', fields)).toBe(true);
    const inv = (await store.get(id))!;
    expect(inv).toMatchObject({ status: 'completed', error: 'leaked [redacted]' });
    expect(inv.conversation).toEqual([expect.objectContaining({ status: 'answered', answer: 'lone \ud800' })]);
    expect(await db.client.hget(keys.investigation(id), 'askStatus')).toBe('answered');
    expect(await db.client.ttl(keys.investigation(id))).toBe(-1);
    expect(await runs.settleAsk(id, 'failAsk', {})).toBe(false);
    expect(await runs.settleAsk('00000000-0000-4000-8000-000000000000', 'answer', {})).toBe(false);
  });

  it('puts a failed attempt back in the queue, or fails it for good', async () => {
    const id = await completed();
    await runs.ask(id, [], 'q');
    await runs.begin(id, 'ask', 1, 'q1');
    expect(await runs.settleAsk(id, 'requeueAsk', {})).toBe(true);
    expect(await db.client.hget(keys.investigation(id), 'askStatus')).toBe('queued');
    await runs.begin(id, 'ask', 2, 'q1');
    expect(await runs.settleAsk(id, 'failAsk', {})).toBe(true);
    expect(await db.client.hget(keys.investigation(id), 'askStatus')).toBe('failed');
  });

  it("with a TTL, restarts the record's retention", async () => {
    const id = await completed();
    await runs.ask(id, [], 'q');
    await runs.begin(id, 'ask', 1, 'q1');
    expect(await runs.settleAsk(id, 'failAsk', {}, true)).toBe(true);
    const ttl = await db.client.ttl(keys.investigation(id));
    expect(ttl).toBeGreaterThan(190);
    expect(ttl).toBeLessThanOrEqual(200);
  });
});
