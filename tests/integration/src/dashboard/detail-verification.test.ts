import nunjucks from 'nunjucks';
import { describe, expect, it } from 'vitest';
import { detailView } from '../../../../src/dashboard/detail-view.js';
import { VIEWS_DIR } from '../../../../src/dashboard/page-renderer.js';
import type { RemediationEntry } from '../../../../src/records/remediation.js';
import { createRedactor } from '../../../../src/redact.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { anIssue } from '../../../helpers/issue.js';
import { redisClient } from '../../../helpers/redis-client.js';
import { claimIssue, runsOf } from '../../../helpers/store-paths.js';

// The investigation page says what Lestrade's check found after a remediation, escaped and redacted like the rest.

const r = redisClient();
const env = new nunjucks.Environment(new nunjucks.FileSystemLoader(VIEWS_DIR), { autoescape: true });
env.addFilter('duration', String);
env.addFilter('time', String);
env.addFilter('pretty', (v: unknown) => JSON.stringify(v));
env.addFilter('statusLabel', String);

async function record() {
  const store = new InvestigationStore(r.client, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
  const { id } = await claimIssue(store, anIssue('OPS-9'));
  await runsOf(store).complete(id, {
    rca: '## Root cause\nweb leaks memory',
    toolCalls: [],
    usage: { promptTokens: 1, completionTokens: 1, llmCalls: 1 },
    linkHosts: [],
  });
  return (await store.get(id))!;
}

const entry = (toolCallId: string): RemediationEntry => ({
  toolCallId,
  appliedId: `job/1:${toolCallId}`,
  tool: 'kubectl_rollout_restart',
  params: { kind: 'deployment', namespace: 'shop', name: 'web' },
  workload: { kind: 'deployment', namespace: 'shop', name: 'web' },
  appliedAt: '2026-12-07T10:00:00.000Z',
  result: 'applied',
  output: '{}',
});

describe('the investigation page', () => {
  it('shows each verification with its status and evidence, escaped and redacted', async () => {
    const inv = await record();
    const view = detailView(
      {
        ...inv,
        remediation: [
          entry('c1'),
          {
            ...entry('c2'),
            verification: {
              status: 'not_mitigated',
              checkedAt: '2026-12-07T10:10:00.000Z',
              evidence: 'the alert was still firing 10 min after the restart approved by <b>eve</b> s3cr3t-token',
            },
          },
        ],
      },
      createRedactor(['s3cr3t-token']),
    );
    expect(view.verifications).toEqual([expect.objectContaining({ status: 'not_mitigated', label: 'not mitigated' })]);
    const html = env.render('detail.njk', view);
    expect(html).toContain('<h2>Checked after the fix</h2>');
    expect(html).toContain('<span class="badge verification-not_mitigated">not mitigated</span>');
    expect(html).toContain('approved by &lt;b&gt;eve&lt;/b&gt;');
    expect(html).not.toContain('s3cr3t-token');
  });

  it('shows no such card without a verification', async () => {
    const html = env.render('detail.njk', detailView(await record(), createRedactor([])));
    expect(html).not.toContain('Checked after the fix');
  });
});
