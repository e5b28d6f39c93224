import { describe, expect, it } from 'vitest';
import { decideCalls } from '../../../../src/queue/decide-calls.js';
import { approvalRecords } from '../../../helpers/approval-records.js';

// A decision arriving after the pause was decided and the run resumed: its pause is still on record,
// but the run is under way again, so nothing is queued a second time.

const r = approvalRecords();
const deps = () => ({ runs: r.runs, continuations: r.continuations });

describe('decideCalls on a run resumed since', () => {
  it('answers 409 with its status and queues no resume, of either phase', async () => {
    const id = await r.awaiting('a', ['c1']);
    await r.runs.decide(id, 'investigation', [{ toolCallId: 'c1', approved: true }]);
    expect(await r.runs.begin(id, 'investigation', 2, 'resume-job')).toBe(true);
    expect(await r.runs.pauseState(id)).toEqual({ seq: 1, expired: false });
    expect(await decideCalls(deps(), (await r.store.get(id))!, [{ toolCallId: 'c1', approved: true }])).toEqual({
      status: 409,
      body: { error: 'investigation is not awaiting approval (status: running)' },
    });
    expect(await r.work.getJobCounts()).toMatchObject({ waiting: 0, delayed: 0, prioritized: 0 });
  });
});
