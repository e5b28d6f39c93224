import { describe, expect, it } from 'vitest';
import type { Issue } from '../../../../src/issue.js';
import { MemoryStore } from '../../../../src/memory/memory-store.js';
import { InvestigationMemory, type InvestigationMemoryOptions } from '../../../../src/recall/investigation-memory.js';
import { createKeys } from '../../../../src/redis/keys.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { FeedbackStore } from '../../../../src/store/feedback-store.js';
import type { Investigation } from '../../../../src/store/investigation.js';
import { anAlert } from '../../../helpers/issue.js';
import { initialState } from '../../../../src/records/loop-state.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';
import { redisClient } from '../../../helpers/redis-client.js';

const r = redisClient();
const HOUR = 3_600_000;
const LABELS = { alertname: 'KubePodCrashLooping', namespace: 'payments', service: 'checkout', cluster: 'prod' };
const OPTS = { identifyingLabels: ['namespace', 'service', 'cluster'], reuseConfirmed: false, reuseWithinHours: 24 };
const USAGE = { promptTokens: 1, completionTokens: 1, llmCalls: 1 };
const RCA = (cause: string) => `## Key findings\n- restarts\n\n## Root cause\n${cause}\n\n## Next steps\n- fix it`;

function setUp(opts: Partial<InvestigationMemoryOptions> = {}) {
  const store = new InvestigationStore(r.client, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
  const memory = new MemoryStore(r.client, createKeys(), { retentionDays: 30, minScore: 0.75, maxSimilar: 3 });
  const im = new InvestigationMemory(memory, store, {
    identifyingLabels: ['namespace', 'service', 'cluster'],
    reuseConfirmed: true,
    reuseWithinHours: 24,
    ...opts,
  });
  return { store, memory, im };
}

const crash = (identity: string, over: Partial<Issue> = {}) =>
  anAlert(identity, {
    fingerprint: `fp-${identity}`,
    title: `KubePodCrashLooping: Pod payments/checkout-${identity} is crash looping`,
    labels: { ...LABELS, pod: `checkout-${identity}` },
    ...over,
  });

/** A completed investigation of `issue`, remembered. */
async function investigated(s: ReturnType<typeof setUp>, issue: Issue, cause: string): Promise<Investigation> {
  const { id } = await claimIssue(s.store, issue);
  await runsOf(s.store).complete(id, {
    rca: RCA(cause),
    toolCalls: [],
    usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 },
    linkHosts: ['grafana.example'],
  });
  const inv = (await s.store.get(id))!;
  await s.im.remember(inv);
  return inv;
}

async function fresh(s: ReturnType<typeof setUp>, issue: Issue): Promise<Investigation> {
  return (await s.store.get((await claimIssue(s.store, issue)).id))!;
}

describe('InvestigationMemory: remembering', () => {
  it("remembers a completed investigation with its RCA's root-cause section, its identity and labels", async () => {
    const s = setUp();
    const group = { key: 'g1', title: 'KubePodCrashLooping in payments', quietSeconds: 0, maxWaitSeconds: 0 };
    const issue = crash('a', { group });
    const inv = await investigated(s, issue, 'DB_URL is not set.');
    expect(await s.memory.get(inv.id)).toEqual({
      investigationId: inv.id,
      source: 'alertmanager',
      fingerprint: 'fp-a',
      groupKey: 'g1',
      alertName: 'KubePodCrashLooping',
      labels: { namespace: 'payments', service: 'checkout', cluster: 'prod' },
      // A group's investigation is titled by its group.
      title: 'KubePodCrashLooping in payments',
      rootCause: 'DB_URL is not set.',
      rootCauseBy: 'rca',
      verdict: null,
      at: inv.finishedAt,
    });
  });

  it("remembers the root cause with its redaction's placeholders mapped back (another prompt numbers its own)", async () => {
    const s = setUp();
    const { id } = await claimIssue(s.store, crash('r'));
    const state = initialState([{ role: 'user', content: 'x' }]);
    state.redaction = { placeholders: { '<ip-1>': '10.3.3.3', '<email-1>': 'dba@corp.example' } };
    await s.store.saveCheckpoint(id, state);
    await runsOf(s.store).complete(id, {
      rca: RCA('<ip-1> ran out of disk; <email-1> paged; <ip-9> unknown.'),
      toolCalls: [],
      usage: USAGE,
    });
    await s.im.remember((await s.store.get(id))!);
    expect((await s.memory.get(id))?.rootCause).toBe(
      '10.3.3.3 ran out of disk; dba@corp.example paged; <ip-9> unknown.',
    );
  });

  it('remembers nothing of an investigation that did not complete', async () => {
    const s = setUp();
    const { id } = await claimIssue(s.store, crash('f'));
    await runsOf(s.store).fail(id, 'bad key');
    await s.im.remember((await s.store.get(id))!);
    expect(await s.memory.get(id)).toBeNull();
  });

  it("a re-run's RCA replaces the remembered root cause", async () => {
    const s = setUp();
    const inv = await investigated(s, crash('r'), 'First guess.');
    await runsOf(s.store).complete(inv.id, {
      rca: RCA('Second, better guess.'),
      toolCalls: [],
      usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 },
    });
    await s.im.remember((await s.store.get(inv.id))!);
    expect(await s.memory.get(inv.id)).toMatchObject({ rootCause: 'Second, better guess.', rootCauseBy: 'rca' });
  });

  it("a verdict updates the memory: a person's stated root cause replaces the RCA's, with who said so", async () => {
    const s = setUp();
    const inv = await investigated(s, crash('v'), 'The network.');
    expect(
      await s.im.verdictGiven(inv.id, {
        verdict: 'wrong',
        rootCause: 'A full disk on the node.',
        by: { user: 'alice' },
      }),
    ).toBe(true);
    expect(await s.memory.get(inv.id)).toMatchObject({
      verdict: 'wrong',
      rootCause: 'A full disk on the node.',
      rootCauseBy: 'person',
      confirmedBy: 'alice',
    });
    expect(
      await s.im.verdictGiven('00000000-0000-4000-8000-000000000000', { verdict: 'correct', by: { user: 'x' } }),
    ).toBe(false);
  });
});

describe('InvestigationMemory with the feedback store', () => {
  it('a verdict recorded before the investigation was remembered still counts (the latest one)', async () => {
    const s = setUp();
    const feedback = new FeedbackStore(r.client);
    const im = new InvestigationMemory(s.memory, s.store, OPTS, undefined, feedback);
    const { id } = await claimIssue(s.store, crash('early'));
    await runsOf(s.store).complete(id, { rca: RCA('The network.'), toolCalls: [], usage: USAGE });
    const by = (user: string) => ({ via: 'api' as const, user });
    await feedback.record(id, { verdict: 'partly', by: by('bob'), at: '2026-12-07T10:00:00.000Z' });
    await feedback.record(id, {
      verdict: 'wrong',
      rootCause: 'A full disk.',
      by: by('alice'),
      at: '2026-12-07T11:00:00.000Z',
    });
    await im.remember((await s.store.get(id))!);
    expect(await s.memory.get(id)).toMatchObject({
      verdict: 'wrong',
      rootCause: 'A full disk.',
      rootCauseBy: 'person',
      confirmedBy: 'alice',
    });
  });
});

describe('InvestigationMemory: reuse checks the verdicts against the RCA now stored', () => {
  it('reuses a predecessor people confirmed after its RCA was written, not one whose re-run replaced the RCA they confirmed', async () => {
    const s = setUp();
    const feedback = new FeedbackStore(r.client);
    const im = new InvestigationMemory(s.memory, s.store, { ...OPTS, reuseConfirmed: true }, undefined, feedback);
    feedback.onFeedback((id, entry) => im.verdictGiven(id, entry));
    const issue = (n: string) => crash('same', { identity: `same@${n}` });
    const { id: past } = await claimIssue(s.store, issue('1'));
    await runsOf(s.store).complete(past, { rca: RCA('DB_URL is not set.'), toolCalls: [], usage: USAGE });
    await im.remember((await s.store.get(past))!);
    await feedback.record(past, {
      verdict: 'correct',
      by: { via: 'api', user: 'alice' },
      at: new Date().toISOString(),
    });
    const inv = await fresh(s, issue('2'));
    expect((await im.recall(inv, inv.issue)).reuse?.id).toBe(past);
    // A re-run completes later with another RCA: the verdict was about the one before.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await runsOf(s.store).complete(past, { rca: RCA('Something else.'), toolCalls: [], usage: USAGE });
    await im.remember((await s.store.get(past))!);
    expect((await im.recall(inv, inv.issue)).reuse).toBeNull();
    // Confirmed again, after it: reused again.
    await feedback.record(past, {
      verdict: 'correct',
      by: { via: 'api', user: 'bob' },
      at: new Date(Date.now() + 1000).toISOString(),
    });
    expect((await im.recall(inv, inv.issue)).reuse?.id).toBe(past);
  });
});

describe('InvestigationMemory: recalling before a fresh run', () => {
  it('finds the same alert on the same service (another pod) and records it on the investigation', async () => {
    const s = setUp({ reuseConfirmed: false });
    const past = await investigated(s, crash('old'), 'DB_URL is not set.');
    const now = await fresh(s, crash('new'));
    const { similar, reuse } = await s.im.recall(now, now.issue);
    expect(reuse).toBeNull();
    expect(similar).toEqual([
      expect.objectContaining({ id: past.id, verdict: null, rootCause: 'DB_URL is not set.', sameFingerprint: false }),
    ]);
    expect(similar[0]!.score).toBeGreaterThanOrEqual(0.75);
    expect(await s.store.get(now.id)).toMatchObject({ similar, reused: null });
  });

  it('declines: a novel alert, and the same alert name on an unrelated service, get nothing', async () => {
    const s = setUp();
    await investigated(s, crash('old'), 'DB_URL is not set.');
    for (const issue of [
      anAlert('novel', { title: 'CertificateExpiring: api.example', labels: { alertname: 'CertificateExpiring' } }),
      crash('other', { labels: { ...LABELS, namespace: 'search', service: 'indexer', pod: 'indexer-0' } }),
    ]) {
      const inv = await fresh(s, issue);
      expect((await s.im.recall(inv, issue)).similar).toEqual([]);
      expect((await s.store.get(inv.id))!.similar).toEqual([]);
    }
  });

  it('leaves the investigation itself out (a re-run finds its own earlier memory otherwise)', async () => {
    const s = setUp();
    const inv = await investigated(s, crash('self'), 'x');
    expect((await s.im.recall(inv, inv.issue)).similar).toEqual([]);
  });
});

describe('InvestigationMemory: reuse (memory.reuseConfirmed)', () => {
  const same = (n: string) => crash('same', { identity: `same@${n}` });

  it("offers the same alert's predecessor confirmed correct within the window, and marks the investigation", async () => {
    const s = setUp();
    const past = await investigated(s, same('1'), 'DB_URL is not set.');
    await s.im.verdictGiven(past.id, { verdict: 'correct', by: { user: 'alice' } });
    const inv = await fresh(s, same('2'));
    const { reuse, similar } = await s.im.recall(inv, inv.issue);
    expect(reuse?.id).toBe(past.id);
    expect(reuse?.rca).toBe(RCA('DB_URL is not set.'));
    expect(similar[0]).toMatchObject({ id: past.id, verdict: 'correct', confirmedBy: 'alice', sameFingerprint: true });
    expect((await s.store.get(inv.id))!.reused).toEqual({ from: past.id });
  });

  it('offers a predecessor of the same group key, though its fingerprint differs', async () => {
    const s = setUp();
    const group = { key: '{}:{alertname="KubePodCrashLooping"}', title: 'g', quietSeconds: 0, maxWaitSeconds: 0 };
    const past = await investigated(s, crash('g1', { group }), 'DB_URL is not set.');
    await s.im.verdictGiven(past.id, { verdict: 'correct', by: { user: 'alice' } });
    const inv = await fresh(s, crash('g2', { group }));
    expect((await s.im.recall(inv, inv.issue)).reuse?.id).toBe(past.id);
  });

  it('reuses nothing unless the predecessor is the same alert or group, confirmed correct, recent, still stored, and this is a first run', async () => {
    const s = setUp();
    const past = await investigated(s, same('1'), 'DB_URL is not set.');
    const inv = await fresh(s, same('2'));
    const reused = async (over: { now?: number; inv?: Investigation } = {}) =>
      (await s.im.recall(over.inv ?? inv, inv.issue, over.now)).reuse?.id ?? null;
    // Not rated yet, partly, wrong: the model runs.
    expect(await reused()).toBeNull();
    for (const verdict of ['partly', 'wrong'] as const) {
      await s.im.verdictGiven(past.id, { verdict, by: { user: 'bob' } });
      expect(await reused()).toBeNull();
    }
    await s.im.verdictGiven(past.id, { verdict: 'correct', by: { user: 'alice' } });
    expect(await reused()).toBe(past.id);
    // Outside the window (24 h after it finished), a re-run, another alert of the same service: the model runs.
    expect(await reused({ now: Date.parse(past.finishedAt!) + 24 * HOUR + 1 })).toBeNull();
    expect(await reused({ now: Date.parse(past.finishedAt!) + 24 * HOUR })).toBe(past.id);
    expect(await reused({ inv: { ...inv, run: 2 } })).toBeNull();
    const other = await fresh(s, crash('other-pod'));
    expect((await s.im.recall(other, other.issue)).reuse).toBeNull();
    // Off: the model runs, though everything else fits.
    const off = setUp({ reuseConfirmed: false });
    expect((await off.im.recall(inv, inv.issue)).reuse).toBeNull();
    // The predecessor's full record expired (memory keeps far longer): nothing to write back.
    await r.client.del(createKeys().investigation(past.id));
    expect(await reused()).toBeNull();
    expect((await s.store.get(inv.id))!.reused).toBeNull();
  });
});
