import { Redis } from 'ioredis';
import { beforeEach, describe, expect, it } from 'vitest';
import { initialState } from '../../../../src/records/loop-state.js';
import { createRedactor } from '../../../../src/redact.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { keys } from '../../../../src/redis/keys.js';
import { redisClient } from '../../../helpers/redis-client.js';
import { ticketIssue as issue } from '../../../helpers/ticket-issue.js';
import { beginRun, claimIssue, runsOf } from '../../../helpers/store-paths.js';

// Store operations around a run: skips, waits, progress, kept outputs, checkpoints, completion.

const SECRET = 'sk-progress-secret';
const MISSING = '00000000-0000-4000-8000-000000000000';
const db = redisClient();
let store: InvestigationStore;

const usage = { promptTokens: 4, completionTokens: 2, llmCalls: 1 };
const context = { windowTokens: 8000, peakTokens: 1200, compactions: [] };

beforeEach(async () => {
  store = new InvestigationStore(db.client, { dedupTtlSeconds: 100, retentionSeconds: 200 }, createRedactor([SECRET]));
});

describe('skip', () => {
  it('ends a queued or running investigation as skipped, with the reason, starting its retention', async () => {
    for (const running of [false, true]) {
      const { id } = await claimIssue(store, issue(`s-${running}`));
      if (running) await beginRun(store, id, 1);
      expect(await runsOf(store).skip(id, `resolved first ${SECRET}`)).toBe(true);
      const inv = (await store.get(id))!;
      expect(inv).toMatchObject({
        status: 'skipped',
        skipReason: 'resolved first [redacted]',
        skippedBy: null,
        finishedAt: expect.any(String),
      });
      expect(inv.updatedAt).toBe(inv.finishedAt);
      expect(await db.client.ttl(keys.investigation(id))).toBeGreaterThan(190);
    }
  });

  it('leaves a finished investigation, or a missing one, alone', async () => {
    const { id } = await claimIssue(store, issue('done'));
    await runsOf(store).complete(id, { rca: 'r', toolCalls: [], usage });
    expect(await runsOf(store).skip(id, 'late')).toBe(false);
    expect(await store.get(id)).toMatchObject({ status: 'completed', skipReason: null });
    expect(await runsOf(store).skip(MISSING, 'late')).toBe(false);
    expect(await db.client.exists(keys.investigation(MISSING))).toBe(0);
  });
});

describe('setWaiting', () => {
  it('says why and until when a queued investigation waits, and clears both', async () => {
    const { id } = await claimIssue(store, issue('w'));
    await store.setWaiting(id, 'budget: 10 investigations an hour', '2026-11-30T02:00:00.000Z');
    expect(await store.get(id)).toMatchObject({
      waitingReason: 'budget: 10 investigations an hour',
      waitingUntil: '2026-11-30T02:00:00.000Z',
      status: 'queued',
    });
    await store.setWaiting(id, '', null);
    expect(await store.get(id)).toMatchObject({ waitingReason: null, waitingUntil: null });
  });
});

describe('saveProgress', () => {
  it('shows the tool calls (redacted), usage and context of a run still going, its status untouched', async () => {
    const { id } = await claimIssue(store, issue('p'));
    await beginRun(store, id, 1);
    await store.saveProgress(id, {
      toolCalls: [{ name: 'q', params: { token: SECRET }, status: 'success', durationMs: 3 }],
      usage,
      context,
    });
    expect(await store.get(id)).toMatchObject({
      status: 'running',
      usage,
      context,
      toolCalls: [{ name: 'q', params: { token: '[redacted]' }, status: 'success', durationMs: 3 }],
    });
  });
});

describe('complete', () => {
  it("keeps the run's context, and says it completed", async () => {
    const { id } = await claimIssue(store, issue('c'));
    expect(await runsOf(store).complete(id, { rca: 'r', toolCalls: [], usage, context })).toBe(true);
    expect((await store.get(id))!.context).toEqual(context);
  });

  it('leaves a cancelled investigation cancelled, and a missing one missing, saying it did not complete them', async () => {
    const { id } = await claimIssue(store, issue('x'));
    await db.client.hset(keys.investigation(id), 'status', 'cancelled');
    expect(await runsOf(store).complete(id, { rca: 'r', toolCalls: [], usage })).toBe(false);
    expect(await store.get(id)).toMatchObject({ status: 'cancelled', rca: null });
    expect(await runsOf(store).complete(MISSING, { rca: 'r', toolCalls: [], usage })).toBe(false);
    expect(await db.client.exists(keys.investigation(MISSING))).toBe(0);
  });
});

describe('kept outputs', () => {
  it('read back exactly as saved, redacted, for the retention', async () => {
    const { id } = await claimIssue(store, issue('o'));
    await store.saveOutput(id, 'call_1', `big output with ${SECRET} and a lone \ud800`);
    expect(await store.getOutput(id, 'call_1')).toBe('big output with [redacted] and a lone \ud800');
    expect(await store.getOutput(id, 'call_2')).toBeNull();
    const ttl = await db.client.ttl(keys.output(id, 'call_1'));
    expect(ttl).toBeGreaterThan(190);
    expect(ttl).toBeLessThanOrEqual(200);
  });

  it('are not looked up for an id that is not an investigation id', async () => {
    const offline = new Redis(db.redis.url, { lazyConnect: true, enableOfflineQueue: false });
    const cut = new InvestigationStore(offline, { dedupTtlSeconds: 100, retentionSeconds: 200 });
    expect(await cut.getOutput('../etc', 'call_1')).toBeNull();
    await expect(cut.getOutput(MISSING, 'call_1')).rejects.toThrow();
    offline.disconnect();
  });
});

describe('hasCheckpoint', () => {
  it('is true once a checkpoint is saved', async () => {
    const { id } = await claimIssue(store, issue('h'));
    expect(await store.hasCheckpoint(id)).toBe(false);
    await store.saveCheckpoint(id, initialState([{ role: 'user', content: 'go' }]));
    expect(await store.hasCheckpoint(id)).toBe(true);
  });
});

describe('addLinkedFromMany', () => {
  it('records every pair in one go, each set for the retention', async () => {
    const a = await claimIssue(store, issue('a'));
    const b = await claimIssue(store, issue('b'));
    const from = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
    await store.claims.addLinkedFromMany([
      [a.id, from[0]!],
      [b.id, from[0]!],
      [a.id, from[1]!],
    ]);
    expect((await store.get(a.id))!.linkedFrom).toEqual(from);
    expect((await store.get(b.id))!.linkedFrom).toEqual([from[0]]);
    expect(await db.client.ttl(keys.linkedFrom(b.id))).toBeGreaterThan(190);
    await store.claims.addLinkedFromMany([]);
  });
});
