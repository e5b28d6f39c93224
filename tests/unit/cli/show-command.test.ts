import { describe, expect, it } from 'vitest';
import { renderInvestigation } from '../../../cli/show-command.js';
import { PLAIN } from '../../../cli/terminal-markdown.js';

// `lestrade show`'s Remediation section: each applied remediation, its workload, approver, result and verification.

const inv = {
  id: 'inv-1',
  title: 'web is down',
  source: 'alertmanager',
  status: 'completed',
  createdAt: '2026-12-07T10:00:00Z',
  finishedAt: null,
  rca: null,
  error: null,
  toolCalls: [],
  writeBacks: [],
  approvals: null,
  conversation: [],
};
const entry = {
  toolCallId: 'c1',
  tool: 'kubectl_scale',
  params: { replicas: 5 },
  workload: { kind: 'deployment', namespace: 'shop', name: 'web' },
  approvedBy: { via: 'slack', user: 'U123', name: 'alice' },
  appliedAt: '2026-12-07T10:05:00Z',
  result: 'applied',
};

describe('renderInvestigation: remediation', () => {
  it('lists each remediation with its workload, result, time and approver, and its verification once checked', () => {
    const verification = { status: 'mitigated', checkedAt: '2026-12-07T10:09:00Z', evidence: 'the alert resolved' };
    const out = renderInvestigation(
      {
        ...inv,
        remediation: [
          entry,
          { ...entry, toolCallId: 'c2', approvedBy: undefined, result: 'already_applied', verification },
        ],
      },
      PLAIN,
    );
    expect(out).toContain(
      'Remediation\n' +
        '  kubectl_scale deployment shop/web → applied 2026-12-07T10:05:00Z · approved by alice via slack\n' +
        '  kubectl_scale deployment shop/web → already_applied 2026-12-07T10:05:00Z · approver unknown\n' +
        '    verification: mitigated 2026-12-07T10:09:00Z the alert resolved\n',
    );
  });

  it('has no section without remediations, nor for a service that does not report them', () => {
    expect(renderInvestigation({ ...inv, remediation: [] }, PLAIN)).not.toContain('Remediation');
    expect(renderInvestigation(inv, PLAIN)).not.toContain('Remediation');
  });

  it('makes terminal escapes in the names harmless', () => {
    const out = renderInvestigation(
      { ...inv, remediation: [{ ...entry, workload: { ...entry.workload, name: 'web\u001b[31m' } }] },
      PLAIN,
    );
    expect(out).not.toContain('\u001b[31m');
  });
});
