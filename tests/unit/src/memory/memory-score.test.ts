import { describe, expect, it } from 'vitest';
import type { MemoryQuery, MemoryRecord } from '../../../../src/memory/memory-record.js';
import { prepareQuery, scoreRecord, where } from '../../../../src/memory/memory-score.js';

const past = (over: Partial<MemoryRecord> = {}): MemoryRecord => ({
  investigationId: 'p',
  source: 'alertmanager',
  fingerprint: 'fp-old',
  alertName: 'HighErrorRate',
  labels: { namespace: 'payments', service: 'checkout', cluster: 'eu' },
  title: 'High 5xx error rate on checkout',
  rootCause: 'pool exhausted',
  rootCauseBy: 'rca',
  verdict: null,
  at: '2026-11-01T00:00:00.000Z',
  ...over,
});
const q = (over: Partial<MemoryQuery> = {}): MemoryQuery => ({
  source: 'alertmanager',
  fingerprint: 'fp-new',
  alertName: 'HighErrorRate',
  labels: { namespace: 'payments', service: 'checkout', cluster: 'eu' },
  title: 'High 5xx error rate on checkout',
  ...over,
});
const score = (query: MemoryQuery, rec: MemoryRecord) => scoreRecord(prepareQuery(query), rec);

describe('where', () => {
  it('is 1 when every label agrees, 0 when any both have differs', () => {
    expect(where({ a: '1', cluster: 'x' }, { a: '1', cluster: 'x' })).toBe(1);
    expect(where({ a: '1', cluster: 'x' }, { a: '1', cluster: 'y' })).toBe(0);
    expect(where({ a: '1', b: '2' }, { a: '1', b: '3' })).toBe(0);
  });

  it('dilutes for labels one side has (place labels half as much), and is 0.5 when neither has any', () => {
    // a agrees (2 of 2), b only on one side (counts 1): 2/3.
    expect(where({ a: '1', b: '2' }, { a: '1' })).toBeCloseTo(2 / 3);
    // cluster on one side counts 0.5: 2/2.5.
    expect(where({ a: '1', cluster: 'x' }, { a: '1' })).toBeCloseTo(0.8);
    expect(where({}, {})).toBe(0.5);
    expect(where({ a: '1' }, {})).toBe(0);
  });
});

describe('scoreRecord', () => {
  it('scores the same alert on the same service 0.99 at most, the very same fingerprint 1', () => {
    expect(score(q(), past())).toBe(0.99);
    expect(score(q({ fingerprint: 'fp-old' }), past())).toBe(1);
    // The same fingerprint from another source is another thing.
    expect(score(q({ fingerprint: 'fp-old', source: 'pagerduty' }), past())).toBe(0.99);
  });

  it('adds what (0.5), where (0.35) and title words (0.15)', () => {
    // Same alert, labels agree, no shared word: 0.5 + 0.35.
    expect(score(q({ title: 'zzz' }), past())).toBe(0.85);
    // Same alert, another service: only what and the words.
    expect(score(q({ labels: { namespace: 'payments', service: 'ledger', cluster: 'eu' } }), past())).toBe(0.65);
    // Another alert on the same service, same words: where and words.
    expect(score(q({ alertName: 'HighLatency' }), past())).toBe(0.5);
  });

  it('declines the same alert in another cluster and on another workload below 0.75', () => {
    expect(score(q({ labels: { namespace: 'payments', service: 'checkout', cluster: 'us' } }), past())).toBeLessThan(
      0.75,
    );
    expect(score(q({ labels: { namespace: 'search', service: 'checkout', cluster: 'eu' } }), past())).toBeLessThan(
      0.75,
    );
  });

  it('uses the title words as "what" when neither has an alert name, half of them when one has', () => {
    const ticket = past({
      alertName: undefined,
      labels: { repository: 'acme/shop' },
      title: 'Checkout fails with 500',
    });
    const query = q({ alertName: undefined, labels: { repository: 'acme/shop' }, title: 'Checkout fails with 500' });
    expect(score(query, ticket)).toBe(0.99);
    expect(score({ ...query, title: 'Checkout fails' }, ticket)).toBeCloseTo(0.35 + 0.65 * 0.8, 3);
    expect(score({ ...query, alertName: 'X' }, ticket)).toBeCloseTo(0.25 + 0.35 + 0.15, 3);
  });
});
