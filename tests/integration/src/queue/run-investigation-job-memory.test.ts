import { beforeEach, describe, expect, it } from 'vitest';
import type { Issue } from '../../../../src/issue.js';
import { MemoryStore } from '../../../../src/memory/memory-store.js';
import { noMetrics } from '../../../../src/observability/metrics.js';
import { InvestigationMemory } from '../../../../src/recall/investigation-memory.js';
import { initialState } from '../../../../src/records/loop-state.js';
import { keysOf } from '../../../../src/redis/keys.js';
import { runInvestigationJob } from '../../../../src/queue/run-investigation-job.js';
import { fakeJob, jobDepsOnRedis, type TestJobDeps } from '../../../helpers/job-deps.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';
import { anAlert } from '../../../helpers/issue.js';

// The investigation job with memory (docs/memory.md): past incidents found before a fresh run and handed to
// the investigator, a confirmed predecessor's RCA written back without running the model.

const h = jobDepsOnRedis('sk-memory-secret');
let deps: TestJobDeps;
let memory: InvestigationMemory;
let reusedBy: string[];

const LABELS = { alertname: 'KubePodCrashLooping', namespace: 'payments', service: 'checkout' };
const crash = (identity: string, fingerprint = `fp-${identity}`): Issue =>
  anAlert(identity, {
    fingerprint,
    title: `KubePodCrashLooping: Pod payments/checkout-${identity} is crash looping`,
    labels: { ...LABELS, pod: `checkout-${identity}` },
  });
const answer = (text: string) => ({
  answer: text,
  finishReason: 'answer' as const,
  state: initialState([{ role: 'user', content: 'go' }]),
});

function withMemory(reuseConfirmed: boolean): InvestigationMemory {
  const store = new MemoryStore(h.client, keysOf(h.client), { retentionDays: 30, minScore: 0.75, maxSimilar: 3 });
  return new InvestigationMemory(store, deps.store, {
    identifyingLabels: ['namespace', 'service'],
    reuseConfirmed,
    reuseWithinHours: 24,
  });
}

/** Investigates `issue` through the job (the investigator answers `rca`), then remembers it as the service does. */
async function investigate(issue: Issue, rca: string): Promise<string> {
  const { id } = await claimIssue(deps.store, issue);
  deps.script = async () => answer(rca);
  await runInvestigationJob(fakeJob(id), deps);
  await memory.remember((await deps.store.get(id))!);
  return id;
}

beforeEach(() => {
  deps = h.deps;
  memory = withMemory(false);
  deps.memory = memory;
  reusedBy = [];
  deps.metrics = { ...noMetrics, memoryReused: (source) => reusedBy.push(source) };
});

describe('a fresh run asks memory first', () => {
  it('hands the similar past incidents to the investigator and records them on the investigation', async () => {
    const past = await investigate(crash('a'), '## Root cause\nDB_URL is not set.');
    const { id } = await claimIssue(deps.store, crash('b'));
    deps.calls.length = 0;
    await runInvestigationJob(fakeJob(id), deps);
    expect(deps.calls).toHaveLength(1);
    const given = deps.calls[0]!.opts.similar!;
    expect(given).toEqual([expect.objectContaining({ id: past, rootCause: 'DB_URL is not set.', verdict: null })]);
    const inv = (await deps.store.get(id))!;
    expect(inv.similar).toEqual(given);
    expect(inv).toMatchObject({ status: 'completed', reused: null });
  });

  it('hands an empty list for a novel incident', async () => {
    await investigate(crash('a'), '## Root cause\nDB_URL is not set.');
    const novel = anAlert('cert', { title: 'CertificateExpiring', labels: { alertname: 'CertificateExpiring' } });
    const { id } = await claimIssue(deps.store, novel);
    deps.calls.length = 0;
    await runInvestigationJob(fakeJob(id), deps);
    expect(deps.calls[0]!.opts.similar).toEqual([]);
    expect((await deps.store.get(id))!.similar).toEqual([]);
  });

  it('does not ask again when resuming from a checkpoint (the prompt is in it)', async () => {
    await investigate(crash('a'), '## Root cause\nDB_URL is not set.');
    const { id } = await claimIssue(deps.store, crash('b'));
    await deps.store.saveCheckpoint(id, initialState([{ role: 'user', content: 'earlier' }]));
    deps.calls.length = 0;
    await runInvestigationJob(fakeJob(id), deps);
    expect(deps.calls[0]!.opts.resumeFrom).not.toBeNull();
    expect(deps.calls[0]!.opts.similar).toBeUndefined();
    expect((await deps.store.get(id))!.similar).toEqual([]);
  });

  it('investigates without memory when memory cannot be read, and says so in the log', async () => {
    deps.memory = {
      recall: async () => {
        throw new Error('memory index damaged');
      },
    } as unknown as InvestigationMemory;
    const { id } = await claimIssue(deps.store, crash('b'));
    deps.script = async () => answer('rca');
    await runInvestigationJob(fakeJob(id), deps);
    expect(deps.calls[0]!.opts.similar).toEqual([]);
    expect((await deps.store.get(id))!.status).toBe('completed');
    expect(deps.logs).toContainEqual(
      expect.objectContaining({
        msg: 'memory could not be read; investigating without it',
        err: 'memory index damaged',
      }),
    );
  });
});

describe('reuse of a confirmed predecessor (memory.reuseConfirmed)', () => {
  it("completes with the predecessor's RCA and links, no investigator call, no usage; counted and written back", async () => {
    const rca = '## Root cause\nDB_URL is not set. See https://grafana.example/d/1';
    const past = await investigate(crash('a@1', 'fp-same'), rca);
    await runsOf(deps.store).complete(past, {
      rca,
      toolCalls: [],
      usage: answer('').state.usage,
      linkHosts: ['grafana.example'],
    });
    await memory.verdictGiven(past, { verdict: 'correct', by: { user: 'alice' } });
    deps.memory = withMemory(true);
    const { id } = await claimIssue(deps.store, crash('a@2', 'fp-same'));
    deps.calls.length = 0;
    deps.completions.length = 0;
    await runInvestigationJob(fakeJob(id), deps);
    expect(deps.calls).toEqual([]);
    const inv = (await deps.store.get(id))!;
    expect(inv).toMatchObject({
      status: 'completed',
      rca,
      reused: { from: past },
      linkHosts: ['grafana.example'],
      toolCalls: [],
      usage: { promptTokens: 0, completionTokens: 0, llmCalls: 0 },
    });
    expect(inv.similar[0]).toMatchObject({ id: past, verdict: 'correct', confirmedBy: 'alice' });
    expect(deps.completions).toEqual([id]);
    expect(reusedBy).toEqual(['alertmanager']);
  });

  it('runs the model for a re-run of a reused investigation, and the record no longer says reused', async () => {
    const past = await investigate(crash('a@1', 'fp-same'), '## Root cause\nDB_URL is not set.');
    await memory.verdictGiven(past, { verdict: 'correct', by: { user: 'alice' } });
    deps.memory = withMemory(true);
    const { id } = await claimIssue(deps.store, crash('a@2', 'fp-same'));
    await runInvestigationJob(fakeJob(id), deps);
    expect((await deps.store.get(id))!.reused).toEqual({ from: past });
    // What actions/rerun.ts leaves: run 2, queued, under its own job id.
    await h.client.hset(keysOf(h.client).investigation(id), 'status', 'queued', 'run', '2', 'runId', `${id}-rerun-2`);
    deps.calls.length = 0;
    deps.script = async () => answer('## Root cause\nA fresh look.');
    await runInvestigationJob(fakeJob(id, { jobId: `${id}-rerun-2` }), deps);
    expect(deps.calls).toHaveLength(1);
    expect(deps.calls[0]!.opts.similar![0]).toMatchObject({ id: past, verdict: 'correct' });
    expect(await deps.store.get(id)).toMatchObject({ rca: '## Root cause\nA fresh look.', reused: null });
    expect(reusedBy).toEqual(['alertmanager']);
  });
});
