import { describe, expect, it } from 'vitest';
import type { Destination, DestinationView } from '../../../../src/delivery/destination.js';
import { runDelivery } from '../../../../src/delivery/run-delivery.js';
import { createLogger } from '../../../../src/log.js';
import { initialState } from '../../../../src/records/loop-state.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { anAlert } from '../../../helpers/issue.js';
import { redisClient } from '../../../helpers/redis-client.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';

/** Redaction's placeholders in what a routed destination (Slack, Teams, a webhook) is handed: restoreIn decides. */
const r = redisClient();

/** A destination that keeps what it was handed. */
function recording(): Destination & { views: DestinationView[] } {
  const views: DestinationView[] = [];
  return {
    name: 'rec',
    views,
    describe: () => 'rec',
    deliver: async (view) => {
      views.push(view);
      return { id: `m${views.length}`, url: null, action: 'created' };
    },
  };
}

async function deliveredWith(restoreIn: string[]): Promise<string> {
  const store = new InvestigationStore(r.client, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
  const { id } = await claimIssue(store, anAlert(`disk-${restoreIn.join('-')}`));
  const state = initialState([{ role: 'user', content: 'x' }]);
  state.redaction = { placeholders: { '<ip-1>': '10.8.8.8' } };
  await store.saveCheckpoint(id, state);
  await runsOf(store).complete(id, {
    rca: '## Root cause\nThe disk of <ip-1> is full.',
    toolCalls: [],
    usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 },
  });
  const destination = recording();
  const deps = {
    redis: r.client,
    store,
    writers: new Map(),
    destinations: new Map([['rec', destination]]),
    log: createLogger('silent'),
    retentionSeconds: 3600,
    restoreIn,
  };
  expect(await runDelivery({ investigationId: id, event: 'completed', ref: 'rec' }, 1, false, deps)).toBe('written');
  return JSON.stringify(destination.views[0]!.doc);
}

describe('a routed destination and redaction', () => {
  it('gets the placeholders by default, and the values when restoreIn lists destinations', async () => {
    const plain = await deliveredWith(['dashboard']);
    expect(plain).toMatch(/The disk of \\*(<|&lt;)ip-1\\*(>|&gt;) is full/);
    expect(plain).not.toContain('10.8.8.8');
    expect(await deliveredWith(['destinations'])).toContain('The disk of 10.8.8.8 is full');
  });
});
