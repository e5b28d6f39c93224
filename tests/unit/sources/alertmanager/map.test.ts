import { describe, expect, it } from 'vitest';
import { IssueSchema } from '../../../../src/issue.js';
import {
  alertIdentity,
  issueFromApiAlert,
  issuesFromWebhook,
  normaliseTime,
} from '../../../../sources/alertmanager/map.js';
import { WebhookPayloadSchema } from '../../../../sources/alertmanager/schema.js';
import { amCaptured, amFixture } from '../../../helpers/fixtures.js';

const parse = (body: unknown) => WebhookPayloadSchema.parse(body);

describe('Alertmanager webhook schema', () => {
  it.each(['group-firing-truncated', 'group-repeat-notification', 'group-mixed-resolved', 'group-next'] as const)(
    'accepts the real delivery %s',
    (name) => {
      expect(WebhookPayloadSchema.safeParse(amFixture(name).body).success).toBe(true);
    },
  );

  it('accepts captured firing and resolved deliveries with a quoted receiver name', () => {
    expect(parse(amCaptured('firing').body).receiver).toBe('bot\\.webhook');
    expect(parse(amCaptured('resolved').body).status).toBe('resolved');
  });

  it('names the bad field', () => {
    const body = structuredClone(amFixture('group-next').body);
    (body.alerts[1] as Record<string, unknown>).fingerprint = 'XYZ';
    const r = WebhookPayloadSchema.safeParse(body);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.path).toEqual(['alerts', 1, 'fingerprint']);
  });

  it('rejects another payload version', () => {
    const r = WebhookPayloadSchema.safeParse({ ...amFixture('group-next').body, version: '3' });
    expect(r.error!.issues[0]!.path).toEqual(['version']);
  });
});

describe('issuesFromWebhook', () => {
  it('maps each alert to a valid Issue with labels, annotations and severity', () => {
    const issues = issuesFromWebhook(parse(amFixture('group-firing-truncated').body));
    expect(issues).toHaveLength(2);
    for (const i of issues) expect(IssueSchema.safeParse(i).success).toBe(true);
    expect(issues[0]).toMatchObject({
      source: 'alertmanager',
      identity: 'e02342136ca8c633@2026-11-30T04:23:06.154Z',
      fingerprint: 'e02342136ca8c633',
      title: 'KubePodCrashLooping: Pod payment-api-a is crash looping',
      description: 'Pod prod/payment-api-a restarted 12 times in 10m',
      severity: 'critical',
      status: 'open',
      url: null,
      startedAt: '2026-11-30T04:23:06.154Z',
      labels: { alertname: 'KubePodCrashLooping', namespace: 'prod', pod: 'payment-api-a', severity: 'critical' },
    });
    expect(issues[0]!.sourceInstance).toMatch(/^http/);
    expect(issues[0]!.raw).toMatchObject({ groupKey: expect.any(String), alert: { fingerprint: 'e02342136ca8c633' } });
  });

  it('gives a repeat notification the same identities', () => {
    const first = issuesFromWebhook(parse(amFixture('group-firing-truncated').body)).map((i) => i.identity);
    const repeat = issuesFromWebhook(parse(amFixture('group-repeat-notification').body)).map((i) => i.identity);
    expect(repeat).toEqual(first);
  });

  it('marks resolved alerts resolved', () => {
    const issues = issuesFromWebhook(parse(amFixture('group-mixed-resolved').body));
    expect(issues.map((i) => [i.fingerprint, i.status])).toEqual([
      ['e02342136ca8c633', 'resolved'],
      ['531b6c61f2547774', 'open'],
    ]);
  });

  it('keeps the generator URL as the link and maps "page" to critical', () => {
    const [issue] = issuesFromWebhook(parse(amCaptured('firing').body));
    expect(issue!.url).toBe('http://prom.example/graph?g0.expr=x');
    expect(issue!.severity).toBe('critical');
  });
});

describe('identity across webhook and API v2', () => {
  it('normalises nanosecond and millisecond timestamps alike', () => {
    expect(normaliseTime('2026-11-30T04:23:06.154621362Z')).toBe('2026-11-30T04:23:06.154Z');
    expect(normaliseTime('2026-11-30T04:23:06.154Z')).toBe('2026-11-30T04:23:06.154Z');
    expect(normaliseTime('2026-11-30T05:23:06.1+01:00')).toBe('2026-11-30T04:23:06.100Z');
    expect(normaliseTime('2026-11-30T04:00:00Z')).toBe('2026-11-30T04:00:00.000Z');
    expect(alertIdentity('e02342136ca8c633', '2026-11-30T04:23:06.154621362Z')).toBe(
      alertIdentity('e02342136ca8c633', '2026-11-30T04:23:06.154Z'),
    );
  });

  it('maps an API v2 alert to the same identity the webhook gives', () => {
    const webhookIssue = issuesFromWebhook(parse(amFixture('group-next').body))[0]!;
    const api = issueFromApiAlert(
      {
        labels: webhookIssue.labels,
        annotations: webhookIssue.annotations,
        startsAt: '2026-11-30T04:23:06.175Z',
        endsAt: '2999-01-01T00:00:00.000Z',
        updatedAt: '2026-11-30T04:23:07.000Z',
        fingerprint: webhookIssue.fingerprint,
        generatorURL: '',
        receivers: [{ name: 'bot' }],
        status: { state: 'active', silencedBy: [], inhibitedBy: [] },
      },
      'http://am:9093',
    );
    expect(api.identity).toBe(webhookIssue.identity);
    expect(api.status).toBe('open');
  });
});

describe('alerts with little in them', () => {
  const apiAlert = (over: Record<string, unknown> = {}) => ({
    labels: {},
    annotations: {},
    startsAt: '2026-11-30T04:23:06.175Z',
    endsAt: '2026-11-30T05:00:00.000Z',
    updatedAt: '2026-11-30T04:23:07.000Z',
    fingerprint: 'e02342136ca8c633',
    receivers: [{ name: 'bot' }],
    status: { state: 'active' as const, silencedBy: [], inhibitedBy: [] },
    ...over,
  });

  it('is titled "alert" without an alertname, with an empty description', () => {
    const issue = issueFromApiAlert(apiAlert(), 'http://am:9093', 0);
    expect([issue.title, issue.description]).toEqual(['alert', '']);
    expect(issueFromApiAlert(apiAlert({ annotations: { message: 'disk full' } }), 'http://am:9093', 0).title).toBe(
      'alert: disk full',
    );
  });

  it('counts an API alert resolved from the moment its endsAt is reached', () => {
    const ends = Date.parse('2026-11-30T05:00:00.000Z');
    expect(issueFromApiAlert(apiAlert(), 'http://am:9093', ends - 1).status).toBe('open');
    expect(issueFromApiAlert(apiAlert(), 'http://am:9093', ends).status).toBe('resolved');
    expect(issueFromApiAlert(apiAlert(), 'http://am:9093', ends + 1).status).toBe('resolved');
  });

  it('leaves a time that is not a whole RFC 3339 timestamp as it is', () => {
    expect(normaliseTime('at 2026-11-30T04:23:06Z')).toBe('at 2026-11-30T04:23:06Z');
    expect(normaliseTime('2026-11-30T04:23:06Z and later')).toBe('2026-11-30T04:23:06Z and later');
    expect(normaliseTime('2026-13-30T04:23:06Z')).toBe('2026-13-30T04:23:06Z');
  });
});

// Issue 16, defect 3: a rule's annotations are the operators' own text; their hosts may stay live.
describe('Alertmanager alert → Issue: trusted hosts', () => {
  it('lists the hosts of the annotations and the generator URL', () => {
    const body = structuredClone(amFixture('group-next').body);
    const alert = body.alerts[0] as { annotations: Record<string, string>; generatorURL: string };
    alert.annotations = { runbook_url: 'https://runbooks.example.com/db', summary: 'x' };
    alert.generatorURL = 'http://prometheus.example.com:9090/graph';
    const issue = issuesFromWebhook(parse(body))[0]!;
    expect(issue.trustedHosts?.sort()).toEqual(['prometheus.example.com', 'runbooks.example.com']);
  });
});
