import { describe, expect, it } from 'vitest';
import { checkOf } from '../../../../src/delivery/check-of.js';
import type { Investigation } from '../../../../src/store/investigation.js';

const record = (check: unknown) =>
  ({ id: 'i1', source: 'check', ...(check === undefined ? {} : { check }) }) as unknown as Investigation;

describe('checkOf: the health check an investigation ran', () => {
  it("is the record's check outcome when it has one", () => {
    const check = { name: 'checkout', status: 'fail', previous: 'pass', summary: 's', evidence: ['e'] };
    expect(checkOf(record(check))).toBe(check);
  });

  it('is null for every other investigation, and for a record whose check lacks a name or status', () => {
    expect(checkOf(record(undefined))).toBeNull();
    expect(checkOf(record(null))).toBeNull();
    expect(checkOf(record({ status: 'fail' }))).toBeNull();
    expect(checkOf(record({ name: 'checkout' }))).toBeNull();
  });
});
