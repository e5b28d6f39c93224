import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Investigator } from '../../../../src/investigation/investigator.js';
import type { Issue } from '../../../../src/issue.js';
import { createLogger } from '../../../../src/log.js';
import { initialState } from '../../../../src/records/loop-state.js';
import { Intake } from '../../../../src/queue/intake-queue.js';
import { RunControl } from '../../../../src/store/run-control.js';
import type { Investigation } from '../../../../src/store/investigation.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { waitFor } from '../../../helpers/service.js';
import { startTestWorker, workerQueue, type TestWorker } from '../../../helpers/worker-queue.js';
import { anAlert } from '../../../helpers/issue.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';

// A job whose investigation is already finished (redelivered after a crash, or enqueued again
// by hand) must not run the LLM again: a completed one only asks for its write-back again, a
// failed one does nothing.

const q = workerQueue();
let w: TestWorker | undefined;
let store: InvestigationStore;
let intake: Intake;
let investigated: Issue[];
let completions: Investigation[];

beforeEach(async () => {
  store = new InvestigationStore(q.conn, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
  intake = new Intake(q.conn, store, { attempts: 3, backoffMs: 100, retentionSeconds: 3600 });
  investigated = [];
  completions = [];
  const investigator = {
    investigate: async (issue: Issue) => {
      investigated.push(issue);
      return { answer: `fresh RCA of ${issue.title}`, finishReason: 'answer', state: initialState([]) };
    },
  } as unknown as Investigator;
  const log = createLogger('silent');
  w = await startTestWorker(q, {
    store,
    runs: new RunControl(q.conn, 3600),
    investigator,
    log,
    backoffMs: 100,
    onCompleted: async (inv) => {
      completions.push(inv);
    },
  });
});
afterEach(async () => {
  await w?.close();
  await intake.close();
});

function alert(identity: string): Issue {
  return anAlert(identity, { sourceInstance: 'am.test', title: `Alert ${identity}`, labels: { alertname: 'Test' } });
}

/** Enqueues the investigation's job and waits until BullMQ has finished it. */
async function runJob(id: string): Promise<void> {
  await intake.enqueue(id);
  await waitFor(
    `job ${id} to finish`,
    async () => ['completed', 'failed'].includes((await (await q.queue.getJob(id))?.getState()) ?? ''),
    10_000,
  );
}

describe('the investigation worker', () => {
  it('runs a queued investigation, and hands the completed record on for its write-back', async () => {
    const { id } = await claimIssue(store, alert('a1'));
    await runJob(id);
    expect(investigated.map((i) => i.identity)).toEqual(['a1']);
    expect(await store.get(id)).toMatchObject({ status: 'completed', rca: 'fresh RCA of Alert a1', attempts: 1 });
    expect(completions.map((c) => [c.id, c.status, c.rca])).toEqual([[id, 'completed', 'fresh RCA of Alert a1']]);
  });

  it('does not investigate a completed investigation again; it asks for the write-back again', async () => {
    const { id } = await claimIssue(store, alert('a2'));
    await runsOf(store).complete(id, {
      rca: 'the first RCA',
      toolCalls: [],
      usage: { promptTokens: 5, completionTokens: 1, llmCalls: 1 },
    });
    const before = await store.get(id);
    await runJob(id);
    expect(investigated).toEqual([]);
    expect(await store.get(id)).toEqual(before);
    expect(completions.map((c) => [c.id, c.status, c.rca])).toEqual([[id, 'completed', 'the first RCA']]);
  });

  it('does not investigate a failed investigation again, nor ask for a write-back', async () => {
    const { id } = await claimIssue(store, alert('a3'));
    await runsOf(store).fail(id, 'LLM answered 401: bad key');
    const before = await store.get(id);
    await runJob(id);
    expect(investigated).toEqual([]);
    expect(completions).toEqual([]);
    expect(await store.get(id)).toEqual(before);
  });

  it('drops a job whose record is gone (expired), touching nothing', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    await runJob(id);
    expect(investigated).toEqual([]);
    expect(completions).toEqual([]);
    expect(await store.get(id)).toBeNull();
    expect(await (await q.queue.getJob(id))?.getState()).toBe('completed');
  });
});
