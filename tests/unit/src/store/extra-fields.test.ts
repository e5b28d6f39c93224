import { describe, expect, it } from 'vitest';
import { extraFields } from '../../../../src/store/extra-fields.js';

describe('extraFields', () => {
  it('reads a record with none of them as nulls', () => {
    expect(extraFields({})).toEqual({
      priority: null,
      skippedBy: null,
      skipReason: null,
      waitingReason: null,
      waitingUntil: null,
      followUpOf: null,
      cost: null,
      coalescing: null,
    });
  });

  it("reads the cost, and a skip reason before the rule's own", () => {
    expect(
      extraFields({
        cost: '{"amount":0.5,"currency":"USD","model":"m"}',
        skippedBy: 'noisy',
        skipReason: 'resolved first',
      }),
    ).toMatchObject({
      cost: { amount: 0.5, currency: 'USD', model: 'm' },
      skippedBy: 'noisy',
      skipReason: 'resolved first',
    });
    expect(extraFields({ skippedBy: 'noisy' }).skipReason).toBe('matched skip rule noisy');
  });

  it("reads a group's timings, zero where a field is missing", () => {
    expect(extraFields({ group: 'g', lastJoinedAt: '1000', quietMs: '30000', maxWaitMs: '600000' }).coalescing).toEqual(
      { lastJoinedAt: 1000, quietMs: 30_000, maxWaitMs: 600_000 },
    );
    expect(extraFields({ group: 'g' }).coalescing).toEqual({ lastJoinedAt: 0, quietMs: 0, maxWaitMs: 0 });
  });
});
