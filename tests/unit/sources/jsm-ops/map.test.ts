import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config/load-config.js';
import type { Delivery, DeliveryOutcome } from '../../../../src/registration/source.js';
import { sources } from '../../../../sources/index.js';
import { JsmOpsConfigSchema, type JsmOpsConfig } from '../../../../sources/jsm-ops/config.js';
import { jsmOps } from '../../../../sources/jsm-ops/index.js';
import { issueFromApiAlert } from '../../../../sources/jsm-ops/map.js';
import { jsmOpsWebhook } from '../../../../sources/jsm-ops/webhook.js';
import { FIXTURE_ALERT_ID, jsmOpsFixtureText, type JsmOpsFixture } from '../../../fixtures/jsm-ops/fixtures.js';

const config = (c: Partial<JsmOpsConfig> = {}) =>
  JsmOpsConfigSchema.parse({
    siteUrl: 'https://acme.atlassian.net/',
    email: 'lestrade@example.com',
    apiToken: 't',
    webhookToken: 'w',
    ...c,
  });
const ctx = { site: 'https://acme.atlassian.net', instance: 'acme.atlassian.net' };
const handle = (name: JsmOpsFixture, c = config()): DeliveryOutcome => {
  const text = jsmOpsFixtureText(name);
  const delivery: Delivery = { headers: { 'x-lestrade-token': 'w' }, rawBody: Buffer.from(text) };
  return jsmOpsWebhook(c, ctx).handle(JSON.parse(text), delivery) as DeliveryOutcome;
};

describe("JSM Operations webhook payload → Issue (OpsGenie's payload format, shared mapping)", () => {
  it("maps a Create with the site's alert link, and keeps the nanosecond updatedAt exact", () => {
    const out = handle('create');
    if (out.kind !== 'issues') throw new Error('expected issues');
    expect(out.issues[0]).toMatchObject({
      identity: FIXTURE_ALERT_ID,
      source: 'jsm-ops',
      sourceInstance: 'acme.atlassian.net',
      severity: 'critical',
      status: 'open',
      url: `https://acme.atlassian.net/jira/ops/alerts/${FIXTURE_ALERT_ID}`,
      locator: { key: FIXTURE_ALERT_ID, label: '#77', ref: { alertId: FIXTURE_ALERT_ID } },
      labels: { payments: 'true', priority: 'P1' },
      annotations: { alertname: 'CheckoutHighErrorRate' },
      raw: { updatedAt: '1718031599123000457', action: 'Create' },
    });
  });

  it("Close resolves; our own note (marker, or the account's email as username) and others' notes start nothing", () => {
    expect(handle('close')).toMatchObject({
      kind: 'issues',
      issues: [{ status: 'resolved', identity: FIXTURE_ALERT_ID }],
    });
    expect(handle('addnote-own')).toEqual({
      kind: 'ignored',
      reason: 'note on alert 77 is our own (it carries our marker)',
    });
    expect(handle('addnote-human')).toEqual({ kind: 'ignored', reason: 'AddNote on alert 77 starts nothing' });
  });

  it('the same trigger filters apply', () => {
    expect(handle('create', config({ triggers: { tags: [], priorities: ['P3'], teams: [] } }))).toEqual({
      kind: 'ignored',
      reason: 'alert 77: priority P1 is not in triggers.priorities',
    });
  });

  it('maps an API alert: extraProperties → annotations, P4 → info', () => {
    const issue = issueFromApiAlert(
      {
        id: 'j-1',
        tinyId: '3',
        message: 'Queue lag',
        priority: 'P4',
        tags: ['kafka'],
        createdAt: '2024-01-05T07:06:47.958Z',
        extraProperties: { topic: 'orders' },
        alias: 'lag-orders',
        status: 'acked',
      },
      ctx,
    );
    expect(issue).toMatchObject({
      identity: 'j-1',
      fingerprint: 'lag-orders',
      severity: 'info',
      annotations: { topic: 'orders' },
      labels: { kafka: 'true', priority: 'P4' },
      status: 'open',
    });
  });
});

describe('JSM Operations config (key and route: jsm-ops)', () => {
  it('reads the environment into sources.jsm-ops', () => {
    const env = {
      JSM_OPS_SITE_URL: 'https://acme.atlassian.net',
      JSM_OPS_CLOUD_ID: 'abc-123',
      JSM_OPS_EMAIL: 'a@b.c',
      JSM_OPS_API_TOKEN: 'tok',
      JSM_OPS_API_URL: 'https://api.atlassian.com',
      JSM_OPS_WEBHOOK_TOKEN: 'w1,w2',
    };
    expect(loadConfig(env, undefined, sources).sources['jsm-ops']).toMatchObject({
      siteUrl: 'https://acme.atlassian.net',
      cloudId: 'abc-123',
      email: 'a@b.c',
      apiToken: 'tok',
      webhookToken: 'w1,w2',
    });
  });

  it('is off without email + token, or without a cloudId or a site to look it up; warns without a webhook token', () => {
    expect(jsmOps.disabledReason(JsmOpsConfigSchema.parse({ siteUrl: 'https://acme.atlassian.net' }))).toBe(
      'no JSM_OPS_EMAIL + JSM_OPS_API_TOKEN',
    );
    expect(jsmOps.disabledReason(JsmOpsConfigSchema.parse({ email: 'a@b.c', apiToken: 't' }))).toBe(
      'no JSM_OPS_CLOUD_ID or JSM_OPS_SITE_URL (to look the cloudId up)',
    );
    expect(
      jsmOps.disabledReason(JsmOpsConfigSchema.parse({ email: 'a@b.c', apiToken: 't', cloudId: 'abc' })),
    ).toBeNull();
    expect(jsmOps.webhookWarnings!(config({ webhookToken: undefined }))[0]).toMatch(
      /^no JSM_OPS_WEBHOOK_TOKEN set: \/webhooks\/jsm-ops refuses every delivery/,
    );
    expect(JsmOpsConfigSchema.safeParse({ cloudId: '../x' }).success).toBe(false);
  });
});
