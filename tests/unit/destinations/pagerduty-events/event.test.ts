import { describe, expect, it } from 'vitest';
import { checkDedupKey, enqueueEvent, plan, severityOf } from '../../../../destinations/pagerduty-events/event.js';
import type { DestinationView } from '../../../../src/delivery/destination.js';
import type { CheckOutcome } from '../../../../src/records/check-result.js';

function view(check: Partial<CheckOutcome> | null, over: Partial<DestinationView> = {}): DestinationView {
  return {
    event: 'completed',
    investigation: { id: 'inv-1', title: 'Check checkout', source: 'check', run: 1, url: null },
    issue: { identity: 'checkout', severity: 'critical', status: 'open', labels: {}, url: null },
    headline: '',
    check: check && { name: 'checkout', status: 'fail', summary: 's', evidence: [], ...check },
    ...over,
  } as DestinationView;
}

describe('PagerDuty events: what a view sends', () => {
  it('a check: fail and error trigger, pass after fail or error resolves, the rest sends nothing', () => {
    const key = 'lestrade-check:checkout';
    expect(plan(view({ status: 'fail' }), false)).toEqual({ action: 'trigger', dedupKey: key });
    expect(plan(view({ status: 'error', previous: 'pass' }), false)).toEqual({ action: 'trigger', dedupKey: key });
    expect(plan(view({ status: 'pass', previous: 'fail' }), false)).toEqual({ action: 'resolve', dedupKey: key });
    expect(plan(view({ status: 'pass', previous: 'error' }), false)).toEqual({ action: 'resolve', dedupKey: key });
    for (const previous of [undefined, 'pass', 'warn'] as const)
      expect(plan(view({ status: 'pass', previous }), true)).toBeNull();
    expect(plan(view({ status: 'warn', previous: 'fail' }), true)).toBeNull();
    expect(plan(view({ status: 'fail' }, { event: 'resolved' }), true)).toBeNull();
  });

  it('an ordinary investigation only with `investigations`; its resolve only once the issue resolved', () => {
    const key = 'lestrade-issue:check:checkout';
    expect(plan(view(null), false)).toBeNull();
    expect(plan(view(null), true)).toEqual({ action: 'trigger', dedupKey: key });
    expect(plan(view(null, { event: 'resolved' }), true)).toBeNull();
    const resolved = view(null, { event: 'resolved' });
    resolved.issue.status = 'resolved';
    expect(plan(resolved, true)).toEqual({ action: 'resolve', dedupKey: key });
    expect(plan(view(null, { event: 'answered' }), true)).toBeNull();
  });

  it('keeps dedup keys within 255 characters, distinct for distinct long names', () => {
    const a = checkDedupKey('x'.repeat(300));
    const b = checkDedupKey(`${'x'.repeat(299)}y`);
    expect(a).toHaveLength(255);
    expect(a).not.toBe(b);
    expect(checkDedupKey('short')).toBe('lestrade-check:short');
  });

  it('maps severities, clips the summary to 1024 characters, and makes model text plain', () => {
    expect(['critical', 'high', 'warning', 'info', 'unknown'].map((s) => severityOf(s as never))).toEqual([
      'critical',
      'error',
      'warning',
      'info',
      'warning',
    ]);
    const long = view({ summary: `line one\nline\u0000two ${'y'.repeat(2000)}` });
    const event = enqueueEvent(long, { action: 'trigger', dedupKey: 'k' }, 'rk', new Date(0));
    expect(event.payload!.summary).toHaveLength(1024);
    expect(event.payload!.summary.startsWith('checkout: fail — line one line two y')).toBe(true);
    expect(event.payload!.summary.endsWith('…')).toBe(true);
    expect(event).not.toHaveProperty('client_url');
    expect(enqueueEvent(long, { action: 'resolve', dedupKey: 'k' }, 'rk', new Date(0))).toEqual({
      routing_key: 'rk',
      event_action: 'resolve',
      dedup_key: 'k',
    });
  });
});
