import type { Issue } from '../../src/issue.js';

/** A plain open issue from a `tickets` source, its fingerprint its identity: what the store tests claim. */
export const ticketIssue = (identity: string): Issue => ({
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
});
