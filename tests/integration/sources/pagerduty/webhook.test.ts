import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RetryableError } from '../../../../src/errors.js';
import { createLogger } from '../../../../src/log.js';
import type { DeliveryOutcome } from '../../../../src/registration/source.js';
import { pagerdutyWebhook, WEBHOOK_READ_TIMEOUT_MS } from '../../../../sources/pagerduty/webhook.js';
import {
  startPagerDutyDouble,
  type PagerDutyDouble,
  type PdIncident,
} from '../../../helpers/doubles/pagerduty-double.js';
import { apiOn } from '../../../fixtures/pagerduty/double-setup.js';
import { alertFromEvent, incidentEvent } from '../../../fixtures/pagerduty/fixtures.js';

/** The webhook's one API read (the incident's alerts), against the double. */
let pd: PagerDutyDouble;
let incident: PdIncident;
const handle = (body: unknown, over: Record<string, unknown> = {}) => {
  const { api, config } = apiOn(pd, over);
  const h = pagerdutyWebhook(config, api, createLogger('silent'));
  return Promise.resolve(h.handle(body, { headers: {}, rawBody: Buffer.from(JSON.stringify(body)) }));
};
const issuesOf = (o: DeliveryOutcome) => (o.kind === 'issues' ? o.issues : []);
const alertReads = () => pd.requests.filter((r) => r.path.endsWith('/alerts'));

beforeAll(async () => {
  pd = await startPagerDutyDouble();
  incident = pd.addIncident({
    title: '[FIRING:2] HighRequestLatency prod',
    serviceId: 'PSVC001',
    priority: 'P2',
    alerts: [alertFromEvent('am-0.30-events-v2-firing.json')],
  });
});
afterAll(async () => {
  expect(pd.violations).toEqual([]);
  await pd.close();
});
beforeEach(() => {
  pd.requests.length = 0;
  pd.faults.clear();
});

describe('PagerDuty webhook against the API', () => {
  it("incident.triggered reads the incident's alerts once, quickly, and maps them", async () => {
    const [issue] = issuesOf(await handle(incidentEvent('incident.triggered', incident)));
    expect(issue).toMatchObject({
      identity: incident.id,
      severity: 'high',
      labels: { alertname: 'HighRequestLatency', priority: 'P2' },
    });
    expect(issue?.related).toHaveLength(2);
    expect(alertReads()).toHaveLength(1);
  });

  it('resolved and ignored events make no API call', async () => {
    expect(
      issuesOf(await handle(incidentEvent('incident.resolved', incident))).map((i) => [i.identity, i.status]),
    ).toEqual([[incident.id, 'resolved']]);
    expect(await handle(incidentEvent('incident.acknowledged', incident))).toEqual({
      kind: 'ignored',
      reason: 'event incident.acknowledged starts nothing',
    });
    expect(pd.requests).toEqual([]);
  });

  it('PagerDuty rate-limiting, failing or silent: thrown as retryable (the route answers 503 and PagerDuty retries), within its 5 s', async () => {
    pd.faults.add({
      method: 'GET',
      path: /\/alerts$/,
      kind: 'status',
      status: 429,
      body: { error: { message: 'Rate Limit Exceeded' } },
    });
    expect(await handle(incidentEvent('incident.triggered', incident)).catch((e: unknown) => e)).toBeInstanceOf(
      RetryableError,
    );
    pd.faults.add({ method: 'GET', path: /\/alerts$/, kind: 'status', status: 502 });
    expect(await handle(incidentEvent('incident.triggered', incident)).catch((e: unknown) => e)).toBeInstanceOf(
      RetryableError,
    );
    pd.faults.add({ method: 'GET', path: /\/alerts$/, kind: 'delay', ms: WEBHOOK_READ_TIMEOUT_MS + 1_000 });
    const started = Date.now();
    expect(await handle(incidentEvent('incident.triggered', incident)).catch((e: unknown) => e)).toBeInstanceOf(
      RetryableError,
    );
    expect(Date.now() - started).toBeLessThan(WEBHOOK_READ_TIMEOUT_MS + 500);
  });

  it('alerts refused for good (404, 403): the incident is investigated from the event alone', async () => {
    pd.faults.add({
      method: 'GET',
      path: /\/alerts$/,
      kind: 'status',
      status: 403,
      body: { error: { message: 'Access Denied', code: 2010 } },
    });
    const [issue] = issuesOf(await handle(incidentEvent('incident.triggered', incident)));
    expect(issue).toMatchObject({
      identity: incident.id,
      labels: { service: `Service PSVC001`, urgency: 'high', priority: 'P2' },
    });
    expect(issue?.related).toBeUndefined();
  });
});
