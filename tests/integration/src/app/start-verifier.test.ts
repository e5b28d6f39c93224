import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { initialState } from '../../../../src/records/loop-state.js';
import { Lifecycle } from '../../../../src/app/lifecycle.js';
import { startVerifier, verifierEvent } from '../../../../src/app/start-verifier.js';
import type { Investigation } from '../../../../src/store/investigation.js';
import { announceRemediationApplied, type RemediationEntry } from '../../../../src/records/remediation.js';
import type { RolloutProbe } from '../../../../src/remediation/probes.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { listRemediation, recordRemediation } from '../../../../src/store/remediation-log.js';
import { RunControl } from '../../../../src/store/run-control.js';
import { Continuations } from '../../../../src/queue/continuations.js';
import { anIssue } from '../../../helpers/issue.js';
import { captureLog } from '../../../helpers/log-capture.js';
import { redisClient } from '../../../helpers/redis-client.js';
import { waitFor } from '../../../helpers/service.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';

// The composition root's wiring of the verifier (src/app/start-verifier.ts): a remediation announced by the rails'
// hook gets a verification job, whose verdict lands on its remediation[] entry, is re-rendered in place where the RCA
// was written, and (not mitigated) offers the undo as a follow-up question.

const r = redisClient();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

const entry = (toolCallId: string, at: string): RemediationEntry => ({
  toolCallId,
  appliedId: `job/1:${toolCallId}`,
  tool: 'kubectl_scale',
  params: { kind: 'deployment', namespace: 'shop', name: 'web', replicas: 5 },
  workload: { kind: 'deployment', namespace: 'shop', name: 'web' },
  approvedBy: { via: 'slack', user: 'U1', name: 'alice' },
  appliedAt: at,
  result: 'applied',
  output: JSON.stringify({ applied: true, changes: ['spec.replicas: 3 → 5'] }),
});

async function wired(rollout: RolloutProbe) {
  const { log } = captureLog();
  const store = new InvestigationStore(r.client, { dedupTtlSeconds: 3600, retentionSeconds: 86_400 });
  const runs = new RunControl(r.client, 86_400);
  const continuations = new Continuations(r.client, { attempts: 1, backoffMs: 100, retentionSeconds: 3600 });
  const verified: string[] = [];
  const lifecycle = new Lifecycle(log);
  const workerRedis = new Redis(r.redis.url, { maxRetriesPerRequest: null });
  closers.push(async () => {
    await lifecycle.close();
    workerRedis.disconnect();
  });
  const verifier = startVerifier(
    {
      redis: r.client,
      workerRedis,
      stores: { store, runs, continuations },
      deliveries: { verified: async (inv: Investigation, call: string) => void verified.push(`${inv.id}/${call}`) },
      log,
      lifecycle,
      retentionSeconds: 3600,
    },
    { rollout, alerts: [], windowSeconds: 1, intervalSeconds: 0.2 },
  );
  const { id } = await claimIssue(store, anIssue('OPS-77'));
  await runsOf(store).complete(id, {
    rca: 'web ran out of replicas',
    toolCalls: [],
    usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 },
  });
  await store.saveCheckpoint(id, initialState([{ role: 'user', content: 'investigate' }]));
  return { id, store, verified, verifier };
}

describe('the verifier as the service wires it', () => {
  it('turns the hook’s event into a verification on the entry, said in place, with the undo offered', async () => {
    const stuck: RolloutProbe = async () => ({ state: 'failed', detail: 'ProgressDeadlineExceeded' });
    const { id, store, verified, verifier } = await wired(stuck);
    expect(verifier).not.toBeNull();
    const e = entry('call_1', new Date().toISOString());
    await recordRemediation(r.client, id, e);
    expect(announceRemediationApplied({ investigationId: id, ...e, result: 'applied' })).toEqual([]);
    await waitFor('the verification', async () => (await listRemediation(r.client, id))[0]?.verification, 30_000);
    expect((await listRemediation(r.client, id))[0]!.verification).toMatchObject({ status: 'not_mitigated' });
    await waitFor('the in-place update', async () => verified.length > 0, 10_000);
    expect(verified).toEqual([`${id}/call_1`]);
    const inv = await waitFor('the undo offered', async () => {
      const now = await store.get(id);
      return now?.conversation.length ? now : null;
    });
    expect(inv.conversation.at(-1)!.question).toContain(
      'kubectl_scale {"kind":"deployment","namespace":"shop","name":"web","replicas":3}',
    );
  });

  it('starts nothing without a rollout probe (the remediation toolset off)', async () => {
    const { log } = captureLog();
    const lifecycle = new Lifecycle(log);
    const store = new InvestigationStore(r.client, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
    const none = startVerifier(
      {
        redis: r.client,
        workerRedis: r.client,
        stores: {
          store,
          runs: new RunControl(r.client, 3600),
          continuations: new Continuations(r.client, { attempts: 1, backoffMs: 100, retentionSeconds: 3600 }),
        },
        deliveries: { verified: async () => undefined },
        log,
        lifecycle,
        retentionSeconds: 3600,
      },
      { alerts: [], windowSeconds: 1, intervalSeconds: 1 },
    );
    expect(none).toBeNull();
  });

  it('reads the tool’s answer back into its data for the undo', () => {
    const e = entry('c', '2026-12-07T10:00:00.000Z');
    expect(verifierEvent({ investigationId: 'i', ...e, result: 'applied' })).toMatchObject({
      approvedBy: { name: 'alice' },
      result: { changes: ['spec.replicas: 3 → 5'] },
    });
    expect(verifierEvent({ investigationId: 'i', ...e, output: 'not json', result: 'applied' }).result).toBe(
      'not json',
    );
    const { approvedBy: _, ...nobody } = e;
    expect(verifierEvent({ investigationId: 'i', ...nobody, result: 'applied' }).approvedBy).toBeNull();
  });
});
