import { describe, expect, it } from 'vitest';
import { ApiAlertSchema, ApiAlertsSchema, WebhookPayloadSchema } from '../../../../sources/alertmanager/schema.js';
import { amFixture } from '../../../helpers/fixtures.js';

/** GET /api/v2/alerts as Alertmanager 0.25 answers it for the alerts of group-next. */
const apiAlert = () => ({
  annotations: { summary: 'Pod payment-api-a is crash looping' },
  endsAt: '2026-11-30T04:27:06.175Z',
  fingerprint: 'e02342136ca8c633',
  receivers: [{ name: 'bot' }],
  startsAt: '2026-11-30T04:23:06.175Z',
  status: { inhibitedBy: [], silencedBy: [], state: 'active' },
  updatedAt: '2026-11-30T04:23:06.175Z',
  generatorURL: 'http://prometheus:9090/graph?g0.expr=x',
  labels: { alertname: 'KubePodCrashLooping', severity: 'critical' },
});
const issuesOf = (schema: typeof ApiAlertSchema | typeof WebhookPayloadSchema, value: unknown) => {
  const r = schema.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
};

describe('Alertmanager API v2 alerts', () => {
  it('accept a gettable alert, keeping its labels, receivers and state', () => {
    const [a] = ApiAlertsSchema.parse([apiAlert()]);
    expect(a).toEqual(apiAlert());
    const { generatorURL: _g, ...without } = apiAlert();
    expect(ApiAlertSchema.safeParse(without).success).toBe(true);
  });

  it.each([
    ['status.state', { ...apiAlert(), status: { ...apiAlert().status, state: 'firing' } }],
    ['status.silencedBy.0', { ...apiAlert(), status: { ...apiAlert().status, silencedBy: [1] } }],
    ['status.inhibitedBy', { ...apiAlert(), status: { ...apiAlert().status, inhibitedBy: null } }],
    ['receivers.0.name', { ...apiAlert(), receivers: [{}] }],
    ['updatedAt', { ...apiAlert(), updatedAt: 'now' }],
    ['fingerprint', { ...apiAlert(), fingerprint: 1 }],
    ['generatorURL', { ...apiAlert(), generatorURL: null }],
  ])('name %s when it is wrong', (path, value) => {
    expect(issuesOf(ApiAlertSchema, value)[0]?.path).toBe(path);
  });

  it.each(['unprocessed', 'active', 'suppressed'])('take the state %s', (state) => {
    expect(ApiAlertSchema.safeParse({ ...apiAlert(), status: { ...apiAlert().status, state } }).success).toBe(true);
  });
});

describe('labels and annotations', () => {
  it('say what they received instead of an object of strings', () => {
    for (const [value, kind] of [
      [['a'], 'array'],
      [null, 'null'],
      ['x', 'string'],
    ] as const) {
      expect(issuesOf(ApiAlertSchema, { ...apiAlert(), labels: value })).toEqual([
        { path: 'labels', message: `expected an object of strings, received ${kind}` },
      ]);
    }
  });

  it('name each value that is not a string, and what it is', () => {
    expect(issuesOf(ApiAlertSchema, { ...apiAlert(), annotations: { a: 'ok', n: 5, z: null, l: ['x'] } })).toEqual([
      { path: 'annotations.n', message: 'expected string, received number' },
      { path: 'annotations.z', message: 'expected string, received null' },
      { path: 'annotations.l', message: 'expected string, received array' },
    ]);
  });
});

describe('webhook payload', () => {
  const body = () => structuredClone(amFixture('group-next').body) as Record<string, any>;

  it('take truncatedAlerts past 2^53, and refuse a fraction or a negative count, saying why', () => {
    expect(WebhookPayloadSchema.safeParse({ ...body(), truncatedAlerts: 2 ** 60 }).success).toBe(true);
    expect(issuesOf(WebhookPayloadSchema, { ...body(), truncatedAlerts: 1.5 })).toEqual([
      { path: 'truncatedAlerts', message: 'must be an integer' },
    ]);
    expect(issuesOf(WebhookPayloadSchema, { ...body(), truncatedAlerts: -1 })[0]?.path).toBe('truncatedAlerts');
  });

  it('say what a bad timestamp or fingerprint must be', () => {
    const b = body();
    b.alerts[0].startsAt = 'yesterday';
    b.alerts[0].fingerprint = 'E02342136CA8C633';
    expect(issuesOf(WebhookPayloadSchema, b)).toEqual([
      { path: 'alerts.0.startsAt', message: 'must be an RFC 3339 timestamp, e.g. 2024-01-01T00:00:00.123456789Z' },
      { path: 'alerts.0.fingerprint', message: 'must be 16 lower-case hex digits' },
    ]);
    for (const fingerprint of ['xe02342136ca8c633', 'e02342136ca8c633x']) {
      const c = body();
      c.alerts[0].fingerprint = fingerprint;
      expect(issuesOf(WebhookPayloadSchema, c)[0]?.path, fingerprint).toBe('alerts.0.fingerprint');
    }
  });

  it('check notification_reason and routeLabels when present', () => {
    expect(issuesOf(WebhookPayloadSchema, { ...body(), notification_reason: 1 })[0]?.path).toBe('notification_reason');
    expect(WebhookPayloadSchema.parse({ ...body(), routeLabels: { team: 'sre' } }).routeLabels).toEqual({
      team: 'sre',
    });
    expect(issuesOf(WebhookPayloadSchema, { ...body(), groupLabels: [] })[0]?.path).toBe('groupLabels');
  });
});
