import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/errors.js';
import { loadConfig } from '../../../../src/config/load-config.js';
import type { Delivery, DeliveryOutcome } from '../../../../src/registration/source.js';
import { sources } from '../../../../sources/index.js';
import { issueFromApiAlert } from '../../../../sources/opsgenie/map.js';
import { opsgenie } from '../../../../sources/opsgenie/index.js';
import { OpsgenieConfigSchema, type OpsgenieConfig } from '../../../../sources/opsgenie/config.js';
import { opsgenieWebhook } from '../../../../sources/opsgenie/webhook.js';
import { FIXTURE_ALERT_ID, opsgenieFixtureText, type OpsgenieFixture } from '../../../fixtures/opsgenie/fixtures.js';

const config = (c: Partial<OpsgenieConfig> = {}) =>
  OpsgenieConfigSchema.parse({ apiKey: 'k', webhookToken: 't', ...c });
const delivery = (text: string): Delivery => ({ headers: { 'x-lestrade-token': 't' }, rawBody: Buffer.from(text) });
const handle = (text: string, c = config()) =>
  opsgenieWebhook(c).handle(JSON.parse(text), delivery(text)) as DeliveryOutcome;
const issueOf = (name: OpsgenieFixture, c = config()) => {
  const out = handle(opsgenieFixtureText(name), c);
  if (out.kind !== 'issues') throw new Error(`expected issues, got ${JSON.stringify(out)}`);
  return out.issues[0]!;
};

describe('OpsGenie webhook payload → Issue', () => {
  it('maps a Create: identity, alias fingerprint, P1 → critical, tags → labels, details → annotations, third-party text untrusted', () => {
    const issue = issueOf('create', config({ apiUrl: 'https://api.eu.opsgenie.com' }));
    expect(issue).toMatchObject({
      identity: FIXTURE_ALERT_ID,
      fingerprint: '4f9d2c1e0b7a8c3d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d',
      source: 'opsgenie',
      sourceInstance: 'api.eu.opsgenie.com',
      title: '[FIRING:1] CheckoutHighErrorRate checkout prod',
      url: `https://app.eu.opsgenie.com/alert/detail/${FIXTURE_ALERT_ID}/details`,
      severity: 'critical',
      status: 'open',
      startedAt: '2024-06-10T14:59:59.062Z',
      locator: { key: FIXTURE_ALERT_ID, label: '#1042', ref: { alertId: FIXTURE_ALERT_ID } },
    });
    expect(issue.labels).toEqual({
      'env:prod': 'true',
      payments: 'true',
      OverwriteQuietHours: 'true',
      priority: 'P1',
      entity: 'checkout',
      alert_source: 'http://alertmanager.monitoring:9093/#/alerts?receiver=opsgenie',
    });
    expect(issue.annotations).toEqual({
      alertname: 'CheckoutHighErrorRate',
      namespace: 'prod',
      severity: 'critical',
      runbook_url: 'https://runbooks.example.com/checkout-errors',
    });
    expect(issue.description).toMatch(/^5xx ratio of checkout is 12%/);
    expect(issue.untrusted?.map((u) => u.label)).toEqual(['alert message', 'alert description', 'alert details']);
    expect(issue.untrusted?.[2]?.text).toContain('runbook_url: https://runbooks.example.com/checkout-errors');
  });

  it("keeps the nanosecond updatedAt exact (read again from the raw bytes, not the engine's JSON.parse)", () => {
    expect((issueOf('create').raw as { updatedAt: string }).updatedAt).toBe('1718031599123000123');
    expect((issueOf('close').raw as { updatedAt: string }).updatedAt).toBe('1718035199456000789');
    expect(String(JSON.parse(opsgenieFixtureText('create')).alert.updatedAt)).not.toBe('1718031599123000123');
  });

  it('a Close marks the alert resolved; the US API has no region in its links; unknown hosts have none', () => {
    expect(issueOf('close')).toMatchObject({
      status: 'resolved',
      identity: FIXTURE_ALERT_ID,
      url: expect.stringMatching(/^https:\/\/app\.opsgenie\.com\/alert\/detail\//),
    });
    expect(issueOf('create', config({ apiUrl: 'http://127.0.0.1:9' })).url).toBeNull();
  });

  it('priorities P2..P5 and none map through the Map; no alias → the id is the fingerprint', () => {
    const text = (priority: string) =>
      opsgenieFixtureText('create').replace('"priority": "P1"', `"priority": "${priority}"`);
    const severities = ['P2', 'P3', 'P4', 'P5', 'P9'].map(
      (p) => (handle(text(p)) as { issues: Array<{ severity: string }> }).issues[0]!.severity,
    );
    expect(severities).toEqual(['high', 'warning', 'info', 'info', 'unknown']);
    const noAlias = opsgenieFixtureText('create').replace(/"alias": "[0-9a-f]+",/, '');
    expect((handle(noAlias) as { issues: Array<{ fingerprint: string }> }).issues[0]!.fingerprint).toBe(
      FIXTURE_ALERT_ID,
    );
  });

  it('a details key such as "__proto__" stays an own annotation; odd values become text', () => {
    const text = opsgenieFixtureText('create').replace(
      '"namespace": "prod",',
      '"__proto__": "x", "constructor": {"a":1}, "n": 5,',
    );
    const issue = issueOf('create');
    const odd = (handle(text) as { issues: Array<{ annotations: Record<string, string> }> }).issues[0]!.annotations;
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect(Object.keys(odd)).toEqual(['alertname', '__proto__', 'constructor', 'n', 'severity', 'runbook_url']);
    expect(odd.constructor).toBe('{"a":1}');
    expect(odd.n).toBe('5');
    expect(issue.annotations.namespace).toBe('prod');
  });

  it('refuses a payload without an alert id (400 naming the field); other actions are ignored with a reason', () => {
    const text = opsgenieFixtureText('create').replace(`"alertId": "${FIXTURE_ALERT_ID}",`, '');
    expect(() => handle(text)).toThrow(InputError);
    expect(() => handle(text)).toThrow(/^alert\.alertId: /);
    expect(handle(opsgenieFixtureText('acknowledge'))).toEqual({
      kind: 'ignored',
      reason: 'action Acknowledge on alert 1042 starts nothing',
    });
  });

  it('maps an API alert (GET /v2/alerts/{id}) the same way', () => {
    const issue = issueFromApiAlert(
      {
        id: 'a-1',
        tinyId: '7',
        message: 'Disk full',
        priority: 'P2',
        tags: ['db'],
        createdAt: '2024-06-10T15:00:00Z',
        description: 'disk at 99%',
        details: { host: 'db-2' },
        alias: null,
      },
      { apiUrl: 'https://api.opsgenie.com' },
    );
    expect(issue).toMatchObject({
      identity: 'a-1',
      fingerprint: 'a-1',
      severity: 'high',
      labels: { db: 'true', priority: 'P2' },
      annotations: { host: 'db-2' },
      startedAt: '2024-06-10T15:00:00.000Z',
    });
  });
});

describe('OpsGenie config', () => {
  it('reads the environment; no key → off with the reason; no token → warned', () => {
    const c = loadConfig(
      { OPSGENIE_API_KEY: 'key', OPSGENIE_API_URL: 'https://api.eu.opsgenie.com', OPSGENIE_WEBHOOK_TOKEN: 'a,b' },
      undefined,
      sources,
    );
    expect(c.sources.opsgenie).toMatchObject({
      apiKey: 'key',
      apiUrl: 'https://api.eu.opsgenie.com',
      webhookToken: 'a,b',
      writeBack: true,
      noteLimit: 25_000,
    });
    expect(opsgenie.disabledReason(OpsgenieConfigSchema.parse({}))).toBe('no OPSGENIE_API_KEY');
    expect(OpsgenieConfigSchema.parse({}).apiUrl).toBe('https://api.opsgenie.com');
    expect(
      opsgenie.webhookWarnings!(OpsgenieConfigSchema.parse({ apiKey: 'k', triggers: { priorities: ['P1'] } })),
    ).toEqual([expect.stringMatching(/^no OPSGENIE_WEBHOOK_TOKEN set: \/webhooks\/opsgenie refuses every delivery/)]);
    expect(OpsgenieConfigSchema.safeParse({ noteLimit: 30_000 }).success).toBe(false);
    expect(OpsgenieConfigSchema.safeParse({ apikey: 'k' }).success).toBe(false);
  });
});
