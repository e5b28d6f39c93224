import { describe, expect, it } from 'vitest';
import { issuesFromWebhook } from '../../../../sources/alertmanager/map.js';
import { WebhookPayloadSchema } from '../../../../sources/alertmanager/schema.js';
import { alertIdentity } from '../../../../sources/common/alert-identity.js';
import { toIssue } from '../../../../sources/pagerduty/map.js';
import { IncidentSchema, type PdAlert, type PdIncident } from '../../../../sources/pagerduty/schema.js';
import { severityOf } from '../../../../sources/pagerduty/severity.js';
import { alertFromEvent, loadFixture } from '../../../fixtures/pagerduty/fixtures.js';

const incident: PdIncident = IncidentSchema.parse(loadFixture('v3-incident-triggered.json').event.data);
const ctx = { instance: 'api.pagerduty.com' };

/** A PagerDuty alert as GET /incidents/{id}/alerts gives it, made by one of Alertmanager's events. */
function pdAlert(fixture: string, id = 'PALERT1'): PdAlert {
  const a = alertFromEvent(fixture);
  return {
    id,
    summary: a.summary,
    status: 'triggered',
    severity: a.severity,
    alert_key: a.alertKey,
    body: { details: a.details, cef_details: { details: a.details } },
  };
}

describe('incident + alerts → Issue', () => {
  it("maps identity, locator, severity, labels and annotations from the incident and Alertmanager's alerts (0.30)", () => {
    const issue = toIssue(incident, [pdAlert('am-0.30-events-v2-firing.json')], ctx);
    expect(issue).toMatchObject({
      identity: 'PGR0VU2',
      fingerprint: 'PGR0VU2',
      source: 'pagerduty',
      sourceInstance: 'api.pagerduty.com',
      title: 'A little bump in the road',
      url: 'https://acme.pagerduty.com/incidents/PGR0VU2',
      severity: 'critical',
      status: 'open',
      startedAt: '2020-04-09T15:16:27Z',
      locator: { key: 'PGR0VU2', ref: { incidentId: 'PGR0VU2', url: 'https://acme.pagerduty.com/incidents/PGR0VU2' } },
    });
    // Labels both alerts share (not `instance`), then the incident's own, which win over an alert label of the same name.
    expect(issue.labels).toEqual({
      alertname: 'HighRequestLatency',
      code: '500',
      namespace: 'prod',
      service: 'API Service',
      severity: 'critical',
      urgency: 'high',
      priority: 'P1',
    });
    expect(issue.annotations).toEqual({
      runbook_url: 'https://runbooks.example.com/HighRequestLatency',
      summary: 'p99 latency above 2s on checkout',
      service_id: 'PF9KMXH',
      incident_number: '2',
    });
    expect(issue.description).toBe('p99 latency is 3.2s (threshold 2s).\nUpstream: payments-api');
  });

  it('hands alert summaries and details to the model as untrusted text, and keeps raw trimmed', () => {
    const issue = toIssue(
      incident,
      [
        pdAlert('am-0.25-events-v2-firing.json'),
        {
          id: 'POTHER',
          summary: 'Disk full',
          status: 'triggered',
          body: { details: { customKey: 'Server is on fire!' } },
        },
      ],
      ctx,
    );
    expect(issue.untrusted?.map((u) => u.label)).toEqual([
      'PagerDuty alert PALERT1 (triggered, severity error)',
      'PagerDuty alert POTHER (triggered, severity unknown)',
    ]);
    expect(issue.untrusted?.[0]?.text).toContain(
      '[FIRING:2] HighRequestLatency prod (500 checkout critical)\n\nLabels:\n - alertname = HighRequestLatency',
    );
    expect(issue.untrusted?.[0]?.text).toContain(' - instance = checkout-a1b2:8080');
    expect(issue.untrusted?.[1]?.text).toBe('Disk full\n\n{\n "customKey": "Server is on fire!"\n}');
    expect(JSON.stringify(issue.raw)).not.toContain('Server is on fire');
    expect(issue.raw).toMatchObject({
      id: 'PGR0VU2',
      number: '2',
      priority: 'P1',
      alerts: [{ id: 'PALERT1' }, { id: 'POTHER', summary: 'Disk full' }],
    });
  });

  it("without Alertmanager details: only the incident's labels, the alert summary as description", () => {
    const issue = toIssue(
      { ...incident, priority: null },
      [{ id: 'PA', summary: 'The server is on fire.', body: { details: { customKey: 'x' } } }],
      ctx,
    );
    expect(issue.labels).toEqual({ service: 'API Service', urgency: 'high' });
    expect(issue.description).toBe('The server is on fire.');
    expect(issue.severity).toBe('high');
    expect(issue.related).toBeUndefined();
    const bare = toIssue(incident, [], ctx);
    expect([bare.description, 'untrusted' in bare]).toEqual(['', false]);
  });

  it('is resolved when the incident is, or when asked', () => {
    expect(toIssue({ ...incident, status: 'resolved' }, [], ctx).status).toBe('resolved');
    expect(toIssue(incident, [], { ...ctx, status: 'resolved' }).status).toBe('resolved');
  });
});

describe('related: the same alerts as our Alertmanager webhook knows them', () => {
  it("0.30 details give every firing alert's identity, equal to what the Alertmanager source gives the same alert", () => {
    const fromWebhook = issuesFromWebhook(WebhookPayloadSchema.parse(loadFixture('am-0.25-webhook-firing.json').body));
    const issue = toIssue(incident, [pdAlert('am-0.30-events-v2-firing.json')], ctx);
    expect(issue.related).toEqual(fromWebhook.map((i) => ({ source: 'alertmanager', identity: i.identity })));
    expect(issue.related?.[0]?.identity).toBe(alertIdentity('ae93a7aea121d25a', '2026-11-30T10:29:45.343618855Z'));
  });

  it('counts an alert once across PagerDuty alerts, and only firing ones', () => {
    const d = alertFromEvent('am-0.30-events-v2-firing.json').details as { firing: unknown[] };
    const moved = { firing: d.firing.slice(1), resolved: d.firing.slice(0, 1), num_firing: 1, num_resolved: 1 };
    const issue = toIssue(
      incident,
      [pdAlert('am-0.30-events-v2-firing.json'), { id: 'P2', body: { details: moved } }],
      ctx,
    );
    expect(issue.related).toHaveLength(2);
    const onlySecond = toIssue(incident, [{ id: 'P2', body: { details: moved } }], ctx);
    expect(onlySecond.related).toEqual([
      { source: 'alertmanager', identity: alertIdentity('7dc6aba8e8885030', '2026-11-30T10:29:45.343618855Z') },
    ]);
  });

  it('0.29 text details carry no identity: no related, so the incident is investigated on its own', () => {
    expect(toIssue(incident, [pdAlert('am-0.25-events-v2-firing.json')], ctx).related).toBeUndefined();
  });
});

describe('severity', () => {
  it.each([
    ['P1', 'high', 'critical'],
    ['p2', 'low', 'high'],
    ['P3', 'high', 'warning'],
    ['P4', 'high', 'info'],
    ['P5', 'high', 'info'],
    ['SEV-1', 'low', 'critical'],
    ['Sev 3', 'high', 'warning'],
    [null, 'high', 'high'],
    [null, 'low', 'warning'],
    ['Blocker', 'high', 'high'],
    ['constructor', undefined, 'unknown'],
    ['__proto__', 'toString', 'unknown'],
    [null, null, 'unknown'],
  ] as const)('priority %s, urgency %s → %s', (priority, urgency, want) => {
    expect(severityOf(priority, urgency)).toBe(want);
  });
});
