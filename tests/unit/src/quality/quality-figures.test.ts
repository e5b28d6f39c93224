import { describe, expect, it } from 'vitest';
import { FiguresTally, KeyedTallies, type QualityRow } from '../../../../src/quality/quality-figures.js';

const row = (over: Partial<QualityRow> = {}): QualityRow => ({
  id: 'i',
  source: 'alertmanager',
  alert: 'A',
  model: 'm',
  createdAt: '2026-12-01T00:00:00.000Z',
  verdict: null,
  cost: null,
  currency: null,
  resolvedAfterSeconds: null,
  resolved: false,
  recurred: false,
  reused: false,
  ...over,
});

const figures = (rows: QualityRow[]) => {
  const t = new FiguresTally();
  rows.forEach((r) => t.add(r));
  return t.figures();
};

describe('quality figures', () => {
  it('are empty but well defined with nothing counted', () => {
    expect(figures([])).toEqual({
      investigations: 0,
      rated: 0,
      correct: 0,
      partly: 0,
      wrong: 0,
      unrated: 0,
      accuracy: null,
      costPerCorrect: null,
      medianSecondsToResolve: null,
      recurrenceRate: null,
      reused: 0,
    });
  });

  it('count partly as half, and only the rated in accuracy', () => {
    const f = figures([
      row({ verdict: 'correct' }),
      row({ verdict: 'partly' }),
      row({ verdict: 'wrong' }),
      row(),
      row(),
    ]);
    expect(f).toMatchObject({ investigations: 5, rated: 3, unrated: 2, accuracy: 0.5 });
    expect(figures([row({ verdict: 'partly' })]).accuracy).toBe(0.5);
  });

  it('divide the rated ones cost, not the unrated ones, by the correct ones', () => {
    const f = figures([
      row({ verdict: 'correct', cost: 0.2 }),
      row({ verdict: 'wrong', cost: 0.4 }),
      row({ verdict: 'wrong', cost: null }),
      row({ cost: 5 }),
    ]);
    expect(f.costPerCorrect).toBe(0.6);
    expect(figures([row({ verdict: 'wrong', cost: 1 })]).costPerCorrect).toBeNull();
    expect(figures([row({ verdict: 'correct', cost: null })]).costPerCorrect).toBeNull();
    expect(figures([row({ verdict: 'correct', cost: 0 })]).costPerCorrect).toBe(0);
  });

  it('take the median time to resolve, odd and even, and the recurrence of the resolved ones', () => {
    const times = (ts: number[]) => figures(ts.map((t) => row({ resolvedAfterSeconds: t, resolved: true })));
    expect(times([30, 10, 20]).medianSecondsToResolve).toBe(20);
    expect(times([40, 10, 20, 30]).medianSecondsToResolve).toBe(25);
    const f = figures([
      row({ resolved: true, recurred: true }),
      row({ resolved: true }),
      row({ resolved: true }),
      row(),
    ]);
    expect(f.recurrenceRate).toBe(0.3333);
    expect(figures([row({ reused: true }), row()]).reused).toBe(1);
  });

  it('key figures by name, sorted, safe for any name', () => {
    const t = new KeyedTallies();
    t.add('b', row());
    t.add('__proto__', row({ verdict: 'wrong' }));
    t.add('a', row());
    const out = t.figures();
    expect(Object.keys(out)).toEqual(['__proto__', 'a', 'b']);
    expect(out['__proto__']!.wrong).toBe(1);
    expect(JSON.parse(JSON.stringify(out))['__proto__'].wrong).toBe(1);
  });
});
