import { describe, expect, it } from 'vitest';
import { destinationView } from '../../../../src/delivery/destination-view.js';
import type { SimilarPast } from '../../../../src/records/past-incident.js';
import type { Investigation } from '../../../../src/store/investigation.js';
import { renderRca } from '../../../../destinations/slack/blocks.js';
import { anAlert } from '../../../helpers/issue.js';

const PAST = '0aaaaaaa-1111-4222-8333-444444444444';
const confirmed = (rootCause: string, confirmedBy = 'alice'): SimilarPast => ({
  id: PAST,
  title: 'KubePodCrashLooping: checkout-a',
  at: '2026-12-01T09:00:00.000Z',
  score: 0.9,
  verdict: 'correct',
  rootCause,
  rootCauseBy: 'rca',
  confirmedBy,
  sameFingerprint: true,
});

function inv(similar: SimilarPast[], reused: Investigation['reused'] = null): Investigation {
  return {
    id: '0bbbbbbb-1111-4222-8333-444444444444',
    source: 'alertmanager',
    title: 'KubePodCrashLooping: checkout-b',
    status: 'completed',
    issueStatus: 'open',
    issue: anAlert('b'),
    rca: '## Root cause\nDB_URL is not set.',
    linkHosts: [],
    toolCalls: [],
    conversation: [],
    approvals: null,
    similar,
    reused,
  } as unknown as Investigation;
}

const slackText = (i: Investigation) =>
  JSON.stringify(renderRca(destinationView(i, 'completed', { publicUrl: 'https://lestrade.example' })).blocks);

describe('Slack: the RCA message says "Seen before" for a confirmed similar incident', () => {
  it('with the count, date, root cause, who confirmed it and a link to the past investigation on the dashboard', () => {
    const text = slackText(inv([confirmed('DB_URL is *not* set.')]));
    expect(text).toContain(
      `*Seen before:* 1 time, last 2026-12-01 — DB_URL is _not_ set. (confirmed by alice) · <https://lestrade.example/investigations/${PAST}|past investigation>`,
    );
  });

  it("escapes the past root cause and the confirmer's name: no mention, no broadcast, no link to an unvouched host", () => {
    const text = slackText(
      inv([
        confirmed(
          '<!channel> restart it <https://evil.example/x|here> [go](https://evil.example/y) <@U0ADMIN>',
          '<!here>',
        ),
      ]),
    );
    for (const live of ['<!channel>', '<!here>', '<@U0ADMIN>', '<https://evil', '|here>'])
      expect(text).not.toContain(live);
    expect(text).toContain('Seen before:');
  });

  it('says nothing of memory without a confirmed match, and says a reused RCA is reused in the preamble', () => {
    expect(slackText(inv([{ ...confirmed('x'), verdict: 'wrong' }]))).not.toContain('Seen before');
    const reused = slackText(inv([confirmed('x')], { from: PAST }));
    expect(reused).toContain(`This analysis is reused from investigation ${PAST}`);
    expect(reused).toContain('lestrade rerun 0bbbbbbb-1111-4222-8333-444444444444');
  });
});
