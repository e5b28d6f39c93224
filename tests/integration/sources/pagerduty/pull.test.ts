import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/errors.js';
import { createLogger } from '../../../../src/log.js';
import { PagerDutyPull, pagerdutyPull } from '../../../../sources/pagerduty/pull.js';
import { createPagerDutyApi } from '../../../../sources/pagerduty/index.js';
import { startPagerDutyDouble, type PagerDutyDouble } from '../../../helpers/doubles/pagerduty-double.js';
import { apiOn, configFor } from '../../../fixtures/pagerduty/double-setup.js';
import { alertFromEvent } from '../../../fixtures/pagerduty/fixtures.js';

let pd: PagerDutyDouble;
const lists = () => pd.requests.filter((r) => r.path === '/incidents');
const ctx = { log: createLogger('silent'), env: {} };

beforeAll(async () => {
  pd = await startPagerDutyDouble({ clock: () => new Date('2026-11-30T12:00:00Z') });
  // One incident opened long ago and still open: found only because pull asks for date_range=all.
  pd.addIncident({
    title: 'old but open',
    serviceId: 'PSVC001',
    createdAt: '2026-06-01T00:00:00Z',
    status: 'acknowledged',
  });
  for (let i = 1; i <= 6; i++) {
    pd.addIncident({
      title: `incident ${i}`,
      serviceId: i % 2 ? 'PSVC001' : 'PSVC002',
      status: i === 6 ? 'resolved' : 'triggered',
      createdAt: `2026-11-2${i}T00:00:00Z`,
      incidentKey: `key-${i}`,
      alerts: i === 1 ? [alertFromEvent('am-0.30-events-v2-firing.json')] : [],
    });
  }
});
afterAll(async () => {
  expect(pd.violations).toEqual([]);
  expect(pd.responseViolations).toEqual([]);
  await pd.close();
});
beforeEach(() => {
  pd.requests.length = 0;
});

describe('pull: GET /incidents, page after page', () => {
  it("follows offset/limit while `more`, then reads each incident's alerts", async () => {
    const issues = await new PagerDutyPull(apiOn(pd).api, 2).fetchIssues({ statuses: ['triggered', 'acknowledged'] });
    expect(issues.map((i) => i.title)).toEqual([
      'old but open',
      'incident 1',
      'incident 2',
      'incident 3',
      'incident 4',
      'incident 5',
    ]);
    expect(lists().map((r) => [r.query.offset, r.query.limit, r.query.date_range])).toEqual([
      ['0', '2', 'all'],
      ['2', '2', 'all'],
      ['4', '2', 'all'],
    ]);
    expect(pd.requests.filter((r) => r.path.endsWith('/alerts'))).toHaveLength(6);
    const first = issues[1]!;
    expect(first.labels).toMatchObject({ alertname: 'HighRequestLatency', urgency: 'high' });
    expect(first.related).toHaveLength(2);
  });

  it('stops once -n incidents are in hand', async () => {
    const issues = await new PagerDutyPull(apiOn(pd).api, 2).fetchIssues({ statuses: ['triggered'], limit: 3 });
    expect(issues.map((i) => i.title)).toEqual(['incident 1', 'incident 2', 'incident 3']);
    expect(lists().map((r) => [r.query.offset, r.query.limit])).toEqual([
      ['0', '2'],
      ['2', '1'],
    ]);
  });

  it('filters by service and incident key', async () => {
    const bySvc = await new PagerDutyPull(apiOn(pd).api).fetchIssues({
      statuses: ['triggered', 'resolved'],
      serviceIds: ['PSVC002'],
    });
    expect(bySvc.map((i) => [i.title, i.status])).toEqual([
      ['incident 2', 'open'],
      ['incident 4', 'open'],
      ['incident 6', 'resolved'],
    ]);
    expect((await new PagerDutyPull(apiOn(pd).api).fetchIssues({ incidentKey: 'key-6' })).map((i) => i.title)).toEqual([
      'incident 6',
    ]);
  });
});

describe('investigate pagerduty options', () => {
  const prepare = (opts: Record<string, unknown>) =>
    pagerdutyPull(createPagerDutyApi).prepare(configFor(pd), opts, ctx).query;

  it('defaults to triggered and acknowledged incidents; --incident-key alone looks at any status', () => {
    expect(prepare({})).toEqual({
      statuses: ['triggered', 'acknowledged'],
      serviceIds: undefined,
      incidentKey: undefined,
      limit: undefined,
    });
    expect(prepare({ incidentKey: 'k', limit: 2 })).toMatchObject({ statuses: undefined, incidentKey: 'k', limit: 2 });
    expect(prepare({ statuses: 'resolved', service: ['PSVC001', 'PSVC002'] })).toMatchObject({
      statuses: ['resolved'],
      serviceIds: ['PSVC001', 'PSVC002'],
    });
  });

  it('refuses an unknown status or a malformed service id, naming the option', () => {
    expect(() => prepare({ statuses: 'open' })).toThrow(ConfigError);
    expect(() => prepare({ statuses: 'triggered,open' })).toThrow(/--statuses triggered,open/);
    expect(() => prepare({ service: ['my service'] })).toThrow(/--service my service/);
  });
});
