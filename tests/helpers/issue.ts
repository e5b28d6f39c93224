import type { Issue } from '../../src/issue.js';

/**
 * The one Issue builder of the tests: every required field filled, `over` replacing any of them. By default
 * a plain open ticket of a `tickets` source, its identity also its fingerprint. A test that needs an unusual
 * Issue says so in `over`.
 */
export function anIssue(identity: string, over: Partial<Issue> = {}): Issue {
  return {
    identity,
    fingerprint: identity,
    source: 'tickets',
    sourceInstance: 'x',
    title: `t ${identity}`,
    description: '',
    url: null,
    severity: 'warning',
    status: 'open',
    labels: {},
    annotations: {},
    startedAt: '2026-11-30T00:00:00.000Z',
    raw: null,
    ...over,
  };
}

/** A firing Alertmanager alert as the queue tests take it: critical, from instance `am`, titled by its identity. */
export function anAlert(identity: string, over: Partial<Issue> = {}): Issue {
  return anIssue(identity, {
    source: 'alertmanager',
    sourceInstance: 'am',
    title: identity,
    severity: 'critical',
    startedAt: '2026-11-30T08:00:00.000Z',
    ...over,
  });
}
