import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { waitFor } from '../../../helpers/service.js';
import { startSlackDouble, type SlackDouble } from '../../../helpers/doubles/slack-double.js';
import {
  amDelivery,
  finalWriteBack,
  listInvestigations,
  postAlertmanager,
  serveWithDestinations,
  type AmAlert,
} from '../../../helpers/destinations-harness.js';

/** A storm through the Alertmanager webhook with investigateBy: group, delivered to Slack. */
const h = serviceHarness();
const TOKEN = 'xoxb-storm';
const CHANNEL = 'C0STORM001';
let slack: SlackDouble;

beforeEach(async () => {
  slack = await startSlackDouble({ token: TOKEN });
  slack.state.addChannel(CHANNEL, 'storm');
});
afterEach(async () => {
  expect(slack.violations).toEqual([]);
  expect(slack.responseViolations).toEqual([]);
  await slack.close();
});

const group = (name: string, from: number, status?: 'resolved'): AmAlert[] =>
  Array.from({ length: 20 }, (_, i) => ({ name, fp: from + i, ...(status ? { status } : {}) }));

describe('Slack: a storm of 40 alerts in 2 Alertmanager groups', () => {
  it('gives 2 parent messages, at most one reply per investigation, parents updated on resolve', async () => {
    const svc = await serveWithDestinations(
      h,
      { SLACK_BOT_TOKEN: TOKEN, SLACK_API_URL: slack.apiUrl, SLACK_CHANNEL: CHANNEL, LESTRADE_CONCURRENCY: '4' },
      'sources: { alertmanager: { investigateBy: group, groupQuietSeconds: 1, groupMaxWaitSeconds: 3 } }\n',
    );
    // Every alert arrives on its own (as with max_alerts 1), interleaved across the two groups.
    const a = group('KubePodCrashLooping', 0x100);
    const b = group('KubePodNotReady', 0x200);
    await Promise.all(
      a.flatMap((alert, i) => [
        postAlertmanager(svc, amDelivery([alert], 'KubePodCrashLooping')),
        postAlertmanager(svc, amDelivery([b[i]!], 'KubePodNotReady')),
      ]),
    );
    const invs = await waitFor(
      'every investigation completed and delivered',
      async () => {
        const list = await listInvestigations(svc);
        if (!list.every((i) => i.status === 'completed')) return false;
        for (const i of list) await finalWriteBack(svc, i.id, 'slack');
        return list;
      },
      60_000,
    );
    expect(invs.length).toBeGreaterThanOrEqual(2);
    const parents = slack.state.parents(CHANNEL);
    expect(parents).toHaveLength(2);
    const replies = parents.flatMap((p) => slack.state.replies(CHANNEL, p.ts));
    const perInvestigation = new Map<string, number>();
    for (const r of replies) {
      const id = String(r.metadata?.event_payload?.investigation_id);
      perInvestigation.set(id, (perInvestigation.get(id) ?? 0) + 1);
    }
    expect([...perInvestigation.values()].every((n) => n === 1)).toBe(true);
    expect([...perInvestigation.keys()].sort()).toEqual(invs.map((i) => i.id).sort());

    await postAlertmanager(svc, amDelivery(group('KubePodCrashLooping', 0x100, 'resolved'), 'KubePodCrashLooping'));
    await postAlertmanager(svc, amDelivery(group('KubePodNotReady', 0x200, 'resolved'), 'KubePodNotReady'));
    await waitFor(
      'both parents to show resolved',
      async () => parents.every((p) => JSON.stringify(p.blocks).includes('*Resolved*')),
      30_000,
    );
    expect(slack.state.parents(CHANNEL)).toHaveLength(2);
  }, 120_000);
});
