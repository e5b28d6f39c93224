import { beforeEach, describe, expect, it } from 'vitest';
import type { Investigation } from '../../../../src/store/investigation.js';
import { runInvestigationJob } from '../../../../src/queue/run-investigation-job.js';
import { keys } from '../../../../src/redis/keys.js';
import { rerunJobId } from '../../../../src/redis/job-data.js';
import { fakeJob, jobDepsOnRedis, type TestJobDeps } from '../../../helpers/job-deps.js';
import { ticketIssue } from '../../../helpers/ticket-issue.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';

// A completed investigation's job redelivered (the process died before BullMQ heard it finished): the
// write-back request may be what was lost, so it is asked for again, for the job of the record's
// current run only, and the investigation is not run twice.

const h = jobDepsOnRedis('sk-redelivered-secret');
let deps: TestJobDeps;
let told: Investigation[];
const usage = { promptTokens: 1, completionTokens: 1, llmCalls: 1 };

beforeEach(() => {
  deps = h.deps;
  told = [];
  deps.onCompleted = async (inv) => {
    told.push(inv);
  };
});

async function completed(identity: string): Promise<string> {
  const { id } = await claimIssue(deps.store, ticketIssue(identity));
  await runsOf(deps.store).complete(id, { rca: 'the cause', toolCalls: [], usage });
  return id;
}

describe('a completed investigation', () => {
  it("asks for the write-back again when its first run's job is redelivered, running nothing", async () => {
    const id = await completed('first-run');
    await runInvestigationJob(fakeJob(id), deps);
    expect(told.map((i) => [i.id, i.rca])).toEqual([[id, 'the cause']]);
    expect(deps.calls).toEqual([]);
  });

  it("asks again for a re-run's job, and not for the job of an earlier re-run", async () => {
    const id = await completed('re-run');
    await h.client.hset(keys.investigation(id), 'runId', rerunJobId(id, 3));
    await runInvestigationJob(fakeJob(id, { jobId: rerunJobId(id, 2) }), deps);
    expect(told).toEqual([]);
    await runInvestigationJob(fakeJob(id, { jobId: rerunJobId(id, 3) }), deps);
    expect(told.map((i) => i.id)).toEqual([id]);
    expect(deps.calls).toEqual([]);
  });
});
