import { describe, expect, it } from 'vitest';
import { readJson } from '../../../../src/read-json.js';
import { InputError } from '../../../../src/errors.js';
import {
  FeedbackBodySchema,
  feedbackField,
  isFeedbackEntry,
  oldestFirst,
  sameVerdict,
  type FeedbackEntry,
} from '../../../../src/records/feedback.js';

const error = (body: unknown): InputError => {
  try {
    readJson(body, FeedbackBodySchema);
  } catch (err) {
    return err as InputError;
  }
  throw new Error('accepted');
};

describe('FeedbackBodySchema', () => {
  it('accepts a verdict with optional texts, trimmed, blank ones dropped', () => {
    expect(readJson({ verdict: 'wrong', rootCause: '  the DNS ', note: '  ' }, FeedbackBodySchema)).toEqual({
      verdict: 'wrong',
      rootCause: 'the DNS',
    });
    expect(readJson({ verdict: 'correct' }, FeedbackBodySchema)).toEqual({ verdict: 'correct' });
  });

  it('names the field that is wrong and why', () => {
    expect(error({ verdict: 'maybe' })).toMatchObject({ field: 'verdict' });
    expect(error({ verdict: 'maybe' }).message).toContain('"correct", "partly" or "wrong"');
    expect(error({}).field).toBe('verdict');
    const long = error({ verdict: 'wrong', rootCause: 'x'.repeat(2001) });
    expect(long.field).toBe('rootCause');
    expect(long.message).toContain('at most 2000');
    expect(error({ verdict: 'wrong', note: 'x'.repeat(2001) }).field).toBe('note');
    expect(error({ verdict: 'wrong', note: 5 }).field).toBe('note');
    expect(error({ verdict: 'wrong', extra: 1 }).message).toContain('extra');
    expect(readJson({ verdict: 'wrong', rootCause: 'x'.repeat(2000) }, FeedbackBodySchema).rootCause).toHaveLength(
      2000,
    );
  });
});

const e = (over: Partial<FeedbackEntry>): FeedbackEntry => ({
  verdict: 'correct',
  by: { via: 'api', user: 'a' },
  at: 't1',
  ...over,
});

describe('helpers', () => {
  it('keys a person by channel and user', () => {
    expect(feedbackField({ via: 'slack', user: 'U1' })).toBe('slack:U1');
  });
  it('compares what was said, not who or when', () => {
    expect(sameVerdict(e({}), e({ at: 't2', by: { via: 'cli', user: 'b' } }))).toBe(true);
    expect(sameVerdict(e({ rootCause: 'x' }), e({}))).toBe(false);
    expect(sameVerdict(e({ note: 'x' }), e({}))).toBe(false);
    expect(sameVerdict(e({ verdict: 'wrong' }), e({}))).toBe(false);
  });
  it('orders oldest first, then by person', () => {
    const list = [e({ at: 't2' }), e({ at: 't1', by: { via: 'cli', user: 'b' } }), e({ at: 't1' })];
    expect(oldestFirst(list).map((x) => `${x.at}/${x.by.via}`)).toEqual(['t1/api', 't1/cli', 't2/api']);
  });
  it('recognises an entry', () => {
    expect(isFeedbackEntry(e({}))).toBe(true);
    expect(isFeedbackEntry({ ...e({}), verdict: 'maybe' })).toBe(false);
    expect(isFeedbackEntry({ ...e({}), by: null })).toBe(false);
    expect(isFeedbackEntry(null)).toBe(false);
  });
});
