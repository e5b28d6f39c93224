import { beforeEach, describe, expect, it } from 'vitest';
import type { Issue } from '../../../../src/issue.js';
import { intakeOnRedis } from '../../../helpers/intake-on-redis.js';
import { jobsDispatched } from '../../../helpers/service.js';
import { anIssue } from '../../../helpers/issue.js';

// What the service hears of a delivery's resolved issues (onResolved: the dashboard, the write-back's
// "resolved" note), and the light claim a repeat of an issue this process already claimed costs.

const h = intakeOnRedis();
let told: string[];

beforeEach(() => {
  told = [];
  h.intake.onResolved = async (id) => {
    told.push(id);
  };
});

const resolved = (identity: string, over: Partial<Issue> = {}) => anIssue(identity, { status: 'resolved', ...over });
const group = { key: 'g', title: 'group g', quietSeconds: 0, maxWaitSeconds: 0 };

/** Bytes Redis has read from its clients so far. */
const bytesIn = async () => Number(/total_net_input_bytes:(\d+)/.exec(await h.conn.info('stats'))![1]);

describe('resolved issues', () => {
  it('tell the service once per record a delivery resolved, and nothing of an issue never claimed', async () => {
    const { queued } = await h.intake.accept([anIssue('a'), anIssue('b')]);
    const out = await h.intake.accept([resolved('a'), resolved('a'), resolved('never-seen')]);
    expect(out.resolved).toEqual([queued[0]]);
    expect(told).toEqual([queued[0]]);
  });

  it("of a group: a member's resolve changes the record (told) but resolves it only with the last one", async () => {
    const first = await h.intake.accept([anIssue('m1', { group }), anIssue('m2', { group })]);
    const id = first.queued[0]!;
    expect(first.joined).toEqual([id]);
    const partly = await h.intake.accept([resolved('m1', { group })]);
    expect(partly.resolved).toEqual([]);
    expect(told).toEqual([id]);
    const all = await h.intake.accept([resolved('m2', { group })]);
    expect(all.resolved).toEqual([id]);
    expect(told).toEqual([id, id]);
  });
});

describe('a repeat of an issue this process claimed', () => {
  it('is claimed without its record (a lookup), and in full again once Redis has forgotten it', async () => {
    const big = anIssue('big', { description: 'x'.repeat(200_000) });
    let before = await bytesIn();
    const { queued } = await h.intake.accept([big]);
    expect((await bytesIn()) - before).toBeGreaterThan(200_000);
    // The job is added off the acknowledgement's path (BullMQ loading its scripts the first time): not counted below.
    await jobsDispatched(h.conn);
    before = await bytesIn();
    expect(await h.intake.accept([big])).toMatchObject({ queued: [], duplicates: queued });
    expect((await bytesIn()) - before).toBeLessThan(20_000);
    // Its dedup entry expired: the light claim finds nothing, and the issue is claimed again in full.
    await h.conn.flushall();
    const again = await h.intake.accept([big]);
    expect(again.queued).toHaveLength(1);
    expect(again.queued[0]).not.toBe(queued[0]);
  });
});
