import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PRIORITIES, IntakePolicy } from '../../../../src/intake-policy/intake-policy.js';
import type { Issue } from '../../../../src/issue.js';
import { Intake } from '../../../../src/queue/intake-queue.js';
import { dispatchBacklog } from '../../../../src/queue/job-dispatcher.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { waitFor } from '../../../helpers/service.js';
import { anAlert } from '../../../helpers/issue.js';
import { workerQueue } from '../../../helpers/worker-queue.js';

// Deliveries mixing related alerts, skip rules, groups and a small dispatch window.

const q = workerQueue();
let conn: Redis;
let store: InvestigationStore;
let intake: Intake;
let queue: Queue;

const policy = new IntakePolicy({
  priorities: DEFAULT_PRIORITIES,
  prioritiesBySource: {},
  skip: [{ name: 'noisy', matchers: ['alertname="Noisy"'] }],
  skipResolvedWhileQueued: false,
});
const issue = (identity: string, over: Partial<Issue> = {}): Issue =>
  anAlert(identity, { severity: 'warning', labels: { alertname: 'X' }, ...over });
const incident = (identity: string, related: string[], over: Partial<Issue> = {}) =>
  issue(identity, { source: 'pager', related: related.map((r) => ({ source: 'alertmanager', identity: r })), ...over });
const group = { key: 'g', title: 'Group g', quietSeconds: 0, maxWaitSeconds: 0 };

beforeAll(() => {
  ({ conn, queue } = q);
});
beforeEach(() => {
  store = new InvestigationStore(conn, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
  intake = new Intake(conn, store, { attempts: 1, backoffMs: 100, retentionSeconds: 3600, policy });
});
afterEach(async () => {
  await intake.close();
});

describe('a delivery', () => {
  it('links each issue to its own related alerts, whatever resolved issues come with it', async () => {
    const [a1, a2] = (await intake.accept([issue('a1'), issue('a2')])).queued as [string, string];
    const out = await intake.accept([
      incident('R', ['a2'], { status: 'resolved' }),
      incident('B', ['a1']),
      incident('C', ['a2', 'never-seen']),
    ]);
    expect(out.linked).toHaveLength(1);
    expect(await store.get(out.linked![0]!)).toMatchObject({ status: 'linked', linkedTo: [a1] });
    expect(out.queued).toHaveLength(1);
    expect(await store.get(out.queued[0]!)).toMatchObject({ status: 'queued', linkedTo: [a2] });
  });

  it('records issues a skip rule matches as skipped, by that rule', async () => {
    const out = await intake.accept([issue('n', { labels: { alertname: 'Noisy' } })]);
    expect(out.skipped).toEqual([{ id: expect.any(String), rule: 'noisy' }]);
    expect(await store.get(out.skipped![0]!.id)).toMatchObject({ status: 'skipped', skippedBy: 'noisy' });
  });

  it("joins a group's queued investigation, raising its job's priority for a more urgent member", async () => {
    const first = await intake.accept([issue('m1', { group }), issue('m2', { group })]);
    expect(first.queued).toHaveLength(1);
    const id = first.queued[0]!;
    expect(first.joined).toEqual([id]);
    await intake.flush();
    expect((await queue.getJob(id))!.opts.priority).toBe(DEFAULT_PRIORITIES.warning);
    const second = await intake.accept([
      issue('m3', { group, severity: 'critical' }),
      issue('m4', { group, severity: 'critical' }),
    ]);
    expect(second).toMatchObject({ queued: [], joined: [id] });
    expect((await queue.getJob(id))!.priority).toBe(DEFAULT_PRIORITIES.critical);
  });

  it("leaves a group's job at its priority when a less urgent member joins", async () => {
    const {
      queued: [id],
    } = await intake.accept([issue('c1', { group, severity: 'critical' })]);
    await intake.flush();
    expect(await intake.accept([issue('w1', { group }), issue('w2', { group, severity: 'info' })])).toMatchObject({
      queued: [],
      joined: [id],
    });
    expect((await queue.getJob(id!))!.priority).toBe(DEFAULT_PRIORITIES.critical);
  });

  it('reports a group resolved only once every member has', async () => {
    const {
      queued: [id],
    } = await intake.accept([issue('m1', { group }), issue('m2', { group })]);
    expect((await intake.accept([issue('m1', { group, status: 'resolved' })])).resolved).toEqual([]);
    expect((await intake.accept([issue('m2', { group, status: 'resolved' })])).resolved).toEqual([id]);
  });
});

describe('jobs', () => {
  it('are added right after a delivery, without waiting for a flush or a sweep', async () => {
    const {
      queued: [id],
    } = await intake.accept([issue('soon')]);
    await waitFor('the job', async () => (await queue.getJob(id!)) !== undefined, 3_000);
  });

  it('of the last delivery are all added once close() returns: it waits for the running drain', async () => {
    const { queued } = await intake.accept([issue('c1'), issue('c2')]);
    await intake.close();
    for (const id of queued) expect(await queue.getJob(id)).toBeDefined();
    expect((await dispatchBacklog(conn)).count).toBe(0);
  });

  it('left in the dispatch set by a process that died are added by the sweep', async () => {
    const {
      items: [c],
    } = await store.claims.claimMany([{ kind: 'claim', issue: issue('orphan'), status: 'queued', priority: 0 }]);
    intake.startDispatchSweep(30);
    await waitFor('the sweep', async () => (await queue.getJob(c!.id)) !== undefined, 3_000);
  });
});

describe('a small dispatch window', () => {
  it('counts the claims still in the dispatch set as waiting', async () => {
    const windowed = new Intake(conn, store, {
      attempts: 1,
      backoffMs: 100,
      retentionSeconds: 3600,
      dispatchWindow: 1,
    });
    await windowed.accept([issue('w1'), issue('w2'), issue('w3')]);
    await windowed.flush();
    expect(await queue.getJobCountByTypes('waiting', 'prioritized')).toBe(1);
    expect(await windowed.waitingCount()).toBe(3);
    await windowed.close();
  });
});

describe('enqueue', () => {
  it("adds an investigation job by hand under the investigation's id", async () => {
    await intake.enqueue('5f0c1e2a-0000-4000-8000-000000000001', 2);
    expect(await queue.getJob('5f0c1e2a-0000-4000-8000-000000000001')).toMatchObject({
      name: 'investigate',
      data: { investigationId: '5f0c1e2a-0000-4000-8000-000000000001' },
      opts: { priority: 2, attempts: 1 },
    });
  });
});
