import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import type { Issue } from '../../src/issue.js';
import { issuesFromWebhook } from '../../sources/alertmanager/map.js';
import { WebhookPayloadSchema } from '../../sources/alertmanager/schema.js';
import { amCaptured, amFixture } from '../helpers/fixtures.js';
import { oddMap, oddString } from './arbitraries.js';

/**
 * Every webhook the fuzz properties run against: its path, how to authenticate a delivery, real
 * payloads to mutate, a generator of valid payloads, the vendor's own schema, and what a valid
 * payload should be stored as. GitHub and Jira add a row here (with an HMAC or token signer).
 */
export interface WebhookEndpoint {
  name: string;
  path: string;
  /** Service environment that switches the endpoint's authentication on. */
  env: Record<string, string>;
  /** Headers of an authentic delivery of this exact body text (a bearer token, or an HMAC of the body). */
  sign(body: string): Record<string, string>;
  /** Real deliveries, to mutate. */
  fixtures: unknown[];
  /** Valid payloads with odd strings wherever the vendor allows any string. */
  valid: fc.Arbitrary<unknown>;
  /** Gives a payload's items identities never used before (so a run's claims are all new). */
  freshen(body: unknown, nextId: () => string): unknown;
  /** The vendor's published schema (or ours written from its source): what a real sender can send. */
  specAccepts(body: unknown): boolean;
  /** What a valid payload should be stored as, one Issue per open item, in order. */
  expectedOpenIssues(body: unknown): Issue[];
}

const amSchema = JSON.parse(readFileSync(new URL('../fixtures/alertmanager/webhook-v4.schema.json', import.meta.url), 'utf8'));
const amValidate = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: false }).compile(amSchema);
const AM_TOKEN = 'fuzz-alertmanager-token-5f1c';

const rfc3339 = fc.record({
  year: fc.integer({ min: 1, max: 9999 }), month: fc.integer({ min: 1, max: 12 }), day: fc.integer({ min: 1, max: 28 }),
  h: fc.integer({ min: 0, max: 23 }), m: fc.integer({ min: 0, max: 59 }), s: fc.integer({ min: 0, max: 59 }),
  frac: fc.option(fc.stringMatching(/^[0-9]{1,9}$/), { nil: undefined }),
  zone: fc.oneof(fc.constant('Z'), fc.tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
    .map(([sign, hh, mm]) => `${sign}${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}`)),
}).map((t) => `${String(t.year).padStart(4, '0')}-${String(t.month).padStart(2, '0')}-${String(t.day).padStart(2, '0')}T${[t.h, t.m, t.s].map((n) => String(n).padStart(2, '0')).join(':')}${t.frac ? `.${t.frac}` : ''}${t.zone}`);

/** An odd map that often has the keys the mapping reads (alertname, severity, summary, ...), so titles get odd too. */
const withKeys = (names: string[]) => fc.tuple(oddMap, fc.dictionary(fc.constantFrom(...names), oddString, { maxKeys: names.length }))
  .map(([odd, known]) => ({ ...known, ...odd }));

const amAlert = fc.record({
  status: fc.constant('firing'),
  labels: withKeys(['alertname', 'severity', 'namespace']),
  annotations: withKeys(['summary', 'message', 'description', 'runbook_url']),
  startsAt: rfc3339,
  endsAt: fc.constant('0001-01-01T00:00:00Z'),
  generatorURL: oddString,
  fingerprint: fc.stringMatching(/^[0-9a-f]{16}$/),
});

export const alertmanager: WebhookEndpoint = {
  name: 'alertmanager',
  path: '/webhooks/alertmanager',
  env: { ALERTMANAGER_WEBHOOK_TOKEN: AM_TOKEN },
  sign: () => ({ authorization: `Bearer ${AM_TOKEN}`, 'content-type': 'application/json' }),
  fixtures: [
    ...(['group-firing-truncated', 'group-repeat-notification', 'group-mixed-resolved', 'group-next'] as const).map((n) => amFixture(n).body),
    amCaptured('firing').body, amCaptured('resolved').body,
  ],
  valid: fc.record({
    version: fc.constant('4'), groupKey: oddString, truncatedAlerts: fc.nat(), receiver: oddString, status: fc.constant('firing'),
    alerts: fc.array(amAlert, { minLength: 1, maxLength: 3 }),
    groupLabels: oddMap, commonLabels: oddMap, commonAnnotations: oddMap, externalURL: oddString,
  }),
  freshen(body, nextId) {
    const alerts = (body as { alerts?: unknown } | null)?.alerts;
    if (Array.isArray(alerts)) {
      for (const a of alerts) if (a && typeof a === 'object' && typeof (a as { fingerprint?: unknown }).fingerprint === 'string') (a as { fingerprint: string }).fingerprint = nextId();
    }
    return body;
  },
  specAccepts: (body) => amValidate(body) as boolean,
  expectedOpenIssues: (body) => issuesFromWebhook(WebhookPayloadSchema.parse(body)).filter((i) => i.status === 'open'),
};

/** The table the properties iterate. */
export const WEBHOOK_ENDPOINTS: WebhookEndpoint[] = [alertmanager];
