import { describe, expect, it } from 'vitest';
import type { FeedbackEntry, Verdict } from '../../../../src/records/feedback.js';
import { consensus, latestPerPerson, statedRootCause } from '../../../../src/quality/verdicts.js';

const e = (verdict: Verdict, user: string, at: string, over: Partial<FeedbackEntry> = {}): FeedbackEntry => ({
  verdict,
  by: { via: 'slack', user },
  at: `2026-12-01T${at}:00.000Z`,
  ...over,
});

describe('verdicts', () => {
  it('has no verdict when nobody rated', () => {
    expect(consensus([])).toBeNull();
  });

  it('counts only the latest verdict of each person, by time not by order', () => {
    const entries = [e('wrong', 'ann', '10:05'), e('correct', 'ann', '10:00'), e('correct', 'bo', '09:00')];
    expect(latestPerPerson(entries).map((x) => [x.by.user, x.verdict])).toEqual([
      ['ann', 'wrong'],
      ['bo', 'correct'],
    ]);
    expect(consensus([...entries, e('wrong', 'cy', '11:00')])).toBe('wrong');
  });

  it('tells people apart by channel too', () => {
    const entries = [e('wrong', 'ann', '10:00'), e('correct', 'ann', '10:01', { by: { via: 'api', user: 'ann' } })];
    expect(latestPerPerson(entries)).toHaveLength(2);
  });

  it('takes the most common verdict, a tie going to the worse', () => {
    expect(consensus([e('correct', 'a', '10:00'), e('correct', 'b', '10:00'), e('wrong', 'c', '10:00')])).toBe(
      'correct',
    );
    expect(consensus([e('correct', 'a', '10:00'), e('partly', 'b', '10:00')])).toBe('partly');
    expect(consensus([e('partly', 'a', '10:00'), e('wrong', 'b', '10:00')])).toBe('wrong');
    expect(consensus([e('partly', 'a', '10:00')])).toBe('partly');
  });

  it("states the latest wrong verdict's root cause, ignoring blank ones and changed minds", () => {
    expect(
      statedRootCause([
        e('wrong', 'a', '10:00', { rootCause: 'the certificate expired' }),
        e('wrong', 'b', '11:00', { rootCause: '  ' }),
        e('wrong', 'c', '09:00', { rootCause: 'an old cause' }),
        e('wrong', 'd', '08:00', { rootCause: 'changed mind' }),
        e('correct', 'd', '12:00'),
      ]),
    ).toBe('the certificate expired');
    expect(statedRootCause([e('wrong', 'a', '10:00')])).toBeNull();
  });
});
