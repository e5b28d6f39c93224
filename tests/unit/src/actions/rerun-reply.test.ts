import { describe, expect, it } from 'vitest';
import { rerunReply } from '../../../../src/actions/rerun.js';

// The one wording of a re-run's outcome for the API, the CLI and Slack's Re-run button.

describe('rerunReply', () => {
  it('answers each outcome with its status and a message naming the state', () => {
    const id = 'a'.repeat(80);
    expect(rerunReply({ outcome: 'not_found' }, id)).toEqual({
      status: 404,
      body: { error: `no investigation ${'a'.repeat(64)}…[16 more characters]` },
    });
    expect(rerunReply({ outcome: 'busy', status: 'running' }, 'x')).toEqual({
      status: 409,
      body: { error: 'a follow-up question is in progress (status: running)' },
    });
    expect(rerunReply({ outcome: 'not_finished', status: 'awaiting_approval' }, 'x')).toEqual({
      status: 409,
      body: { error: 'only a completed, failed or cancelled investigation can be re-run (status: awaiting_approval)' },
    });
    expect(rerunReply({ outcome: 'queued', run: 3, runId: 'x-rerun-3' }, 'x')).toEqual({
      status: 202,
      body: { status: 'queued', run: 3, runId: 'x-rerun-3' },
    });
  });
});
