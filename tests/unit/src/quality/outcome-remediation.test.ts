import { describe, expect, it } from 'vitest';
import { remediationSignal } from '../../../../src/quality/outcome.js';

const v = (status: 'mitigated' | 'not_mitigated' | 'unknown', checkedAt: string) => ({
  status,
  checkedAt,
  evidence: status,
});

describe('remediationSignal', () => {
  it('is the status of the latest verification, null when none was verified', () => {
    expect(remediationSignal(undefined)).toBeNull();
    expect(remediationSignal([{ verification: null }, {}])).toBeNull();
    expect(
      remediationSignal([
        { verification: v('mitigated', '2026-12-07T10:20:00Z') },
        { verification: v('not_mitigated', '2026-12-07T10:10:00Z') },
        { verification: null },
      ]),
    ).toBe('mitigated');
    expect(
      remediationSignal([
        { verification: v('mitigated', '2026-12-07T10:00:00Z') },
        { verification: v('not_mitigated', '2026-12-07T10:10:00Z') },
      ]),
    ).toBe('not_mitigated');
  });
});
