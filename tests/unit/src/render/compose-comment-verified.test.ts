import { describe, expect, it } from 'vitest';
import { composeComment, verificationSection } from '../../../../src/render/compose-comment.js';

const base = {
  rca: '## Root cause\nweb leaks memory',
  issueKey: 'OPS-7',
  investigationId: 'inv-1',
  allowedHosts: new Set<string>(),
};

describe('the verification in the comment', () => {
  it('says each verified remediation in its words, after the RCA', () => {
    const doc = composeComment({
      ...base,
      verifications: [
        { status: 'not_mitigated', evidence: 'the alert was still firing 10 min after the restart of deployment/web' },
        {
          status: 'mitigated',
          evidence: 'the alert resolved 2 min after the rollback of deployment/web approved by bob',
        },
        { status: 'unknown', evidence: 'nothing live could tell' },
      ],
    });
    expect(doc.sections).toHaveLength(2);
    expect(doc.sections[0]).toContain('web leaks memory');
    expect(doc.sections[1]).toBe(
      [
        '**Checked after the fix** (Lestrade looked whether it helped):',
        '',
        '- Not mitigated: the alert was still firing 10 min after the restart of deployment/web',
        '- Mitigated: the alert resolved 2 min after the rollback of deployment/web approved by bob',
        '- Not verified: nothing live could tell',
      ].join('\n'),
    );
  });

  it('adds nothing without a verification, and sanitises what the evidence quotes', () => {
    expect(composeComment(base).sections).toHaveLength(1);
    expect(verificationSection([])).toBeNull();
    const doc = composeComment({
      ...base,
      verifications: [{ status: 'mitigated', evidence: 'approved by @channel [x](https://evil.example/)' }],
    });
    expect(doc.sections[1]).not.toContain('](https://evil.example/)');
  });
});
