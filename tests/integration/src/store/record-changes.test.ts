import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Issue } from '../../../../src/issue.js';
import { keys } from '../../../../src/redis/keys.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { RunControl } from '../../../../src/store/run-control.js';
import { redisClient } from '../../../helpers/redis-client.js';
import { waitFor } from '../../../helpers/service.js';
import { anIssue } from '../../../helpers/issue.js';
import { beginRun, claimIssue, runsOf } from '../../../helpers/store-paths.js';

const r = redisClient();
let sub: Redis | undefined;
afterEach(() => {
  sub?.disconnect();
  sub = undefined;
});

const issue = (identity: string): Issue =>
  anIssue(identity, { fingerprint: `fp-${identity}`, description: 'd', raw: {} });

async function listen(): Promise<string[]> {
  sub = new Redis(r.redis.url);
  const seen: string[] = [];
  sub.on('message', (_c: string, id: string) => seen.push(id));
  await sub.subscribe(keys.changesChannel());
  return seen;
}

describe('record changes published for the dashboard', () => {
  it('names the record on each change the store or run control makes, and nothing for a change that did not happen', async () => {
    const seen = await listen();
    const store = new InvestigationStore(r.client, { dedupTtlSeconds: 100, retentionSeconds: 200 });
    const runs = new RunControl(r.client, 200);
    const { id } = await claimIssue(store, issue('a'));
    await waitFor('the claim', async () => seen.length === 1);
    expect(seen).toEqual([id]);
    await runs.begin(id, 'investigation', 1, 'job-1');
    await runsOf(store).complete(id, {
      rca: 'r',
      toolCalls: [],
      usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 },
    });
    await runs.ask(id, [], 'why?');
    await waitFor('three more', async () => seen.length === 4);
    // No record: nothing changed, nothing published.
    await beginRun(store, '00000000-0000-4000-8000-000000000000', 1);
    expect(await runs.begin('00000000-0000-4000-8000-000000000001', 'investigation', 1, 'j')).toBe(false);
    await claimIssue(store, issue('b'));
    await waitFor('the second claim', async () => seen.length === 5);
    expect(seen.slice(0, 4)).toEqual([id, id, id, id]);
    expect(seen[4]).not.toBe(id);
  });

  it('names the record when a decision on its pause is recorded (partial or complete), and not when a decision is refused', async () => {
    const seen = await listen();
    const store = new InvestigationStore(r.client, { dedupTtlSeconds: 100, retentionSeconds: 200 });
    const runs = new RunControl(r.client, 200);
    const { id } = await claimIssue(store, issue('decided'));
    await runs.begin(id, 'investigation', 1, 'job-1');
    const call = (callId: string) => ({ id: callId, name: 'restart', arguments: '{}' });
    const approval = (callId: string) => ({
      toolCallId: callId,
      tool: 'restart',
      params: {},
      reason: 'r',
      callKey: callId,
    });
    await runs.pause(
      id,
      'investigation',
      { seq: 1, calls: [call('c1'), call('c2')], results: [null, null], approvals: [approval('c1'), approval('c2')] },
      60,
    );
    await waitFor('claim, begin and pause', async () => seen.length === 3);
    expect(await runs.decide(id, 'investigation', [{ toolCallId: 'zz', approved: true }])).toMatchObject({
      outcome: 'unknown',
    });
    expect(await runs.decide(id, 'investigation', [{ toolCallId: 'c1', approved: true }])).toEqual({
      outcome: 'partial',
    });
    expect(await runs.decide(id, 'investigation', [{ toolCallId: 'c1', approved: false }])).toMatchObject({
      outcome: 'decided',
    });
    expect(await runs.decide(id, 'investigation', [{ toolCallId: 'c2', approved: false }])).toMatchObject({
      outcome: 'complete',
    });
    expect(await runs.decide(id, 'investigation', [{ toolCallId: 'c2', approved: true }])).toMatchObject({
      outcome: 'not_awaiting',
    });
    const other = await claimIssue(store, issue('after'));
    await waitFor('the last claim', async () => seen.includes(other.id));
    expect(seen).toEqual([id, id, id, id, id, other.id]);
  });
});
