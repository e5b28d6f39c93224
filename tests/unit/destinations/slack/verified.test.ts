import { describe, expect, it } from 'vitest';
import { destinationView } from '../../../../src/delivery/destination-view.js';
import type { RemediationVerification } from '../../../../src/records/remediation.js';
import type { Investigation } from '../../../../src/store/investigation.js';
import { renderRca } from '../../../../destinations/slack/blocks.js';
import { anAlert } from '../../../helpers/issue.js';

function inv(verification: RemediationVerification | null): Investigation {
  return {
    id: '0bbbbbbb-1111-4222-8333-444444444444',
    source: 'alertmanager',
    title: 'HighErrorRate: web',
    status: 'completed',
    issueStatus: 'resolved',
    issue: anAlert('b'),
    rca: '## Root cause\nweb leaks memory.',
    linkHosts: [],
    toolCalls: [],
    conversation: [],
    approvals: null,
    remediation: [{ appliedAt: '2026-12-07T10:00:00.000Z', verification }],
  } as unknown as Investigation;
}

const slackText = (i: Investigation) => JSON.stringify(renderRca(destinationView(i, 'updated')).blocks);

describe('Slack: the RCA message says what the check after a fix found', () => {
  it('as a line under the RCA, in its words', () => {
    const text = slackText(
      inv({
        status: 'mitigated',
        checkedAt: '2026-12-07T10:03:00.000Z',
        evidence: 'the alert resolved 3 min after the restart of deployment/web approved by alice',
      }),
    );
    expect(text).toContain('Checked after the fix');
    expect(text).toContain('Mitigated: the alert resolved 3 min after the restart of deployment/web approved by alice');
  });

  it('escapes what the evidence quotes (an approver named <!channel>), and says nothing before a verification', () => {
    const text = slackText(
      inv({ status: 'not_mitigated', checkedAt: '2026-12-07T10:10:00.000Z', evidence: 'approved by <!channel>' }),
    );
    expect(text).toContain('Not mitigated');
    expect(text).not.toContain('<!channel>');
    expect(slackText(inv(null))).not.toContain('Checked after the fix');
  });
});
