import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { WebhookPayloadSchema } from '../../sources/alertmanager/schema.js';
import { amCaptured, amFixture } from '../helpers/fixtures.js';

/**
 * Our zod schema must accept and reject exactly what the webhook v4 JSON Schema does
 * (tests/fixtures/alertmanager/webhook-v4.schema.json, written from Alertmanager's source).
 */
const jsonSchema = JSON.parse(readFileSync(new URL('../fixtures/alertmanager/webhook-v4.schema.json', import.meta.url), 'utf8'));
const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
const validate = ajv.compile(jsonSchema);

type Body = Record<string, any>;
const base = amFixture('group-firing-truncated').body as Body;
const mutations: Array<[string, (b: Body) => void]> = [
  ['as delivered', () => {}],
  ['version 3', (b) => { b.version = '3'; }],
  ['version as number', (b) => { b.version = 4; }],
  ['negative truncatedAlerts', (b) => { b.truncatedAlerts = -1; }],
  ['fractional truncatedAlerts', (b) => { b.truncatedAlerts = 1.5; }],
  ['unknown status', (b) => { b.status = 'pending'; }],
  ['alerts not an array', (b) => { b.alerts = {}; }],
  ['no alerts', (b) => { b.alerts = []; }],
  ['label value a number', (b) => { b.alerts[0].labels.severity = 5; }],
  ['annotation value null', (b) => { b.alerts[0].annotations.summary = null; }],
  ['upper-case fingerprint', (b) => { b.alerts[0].fingerprint = 'E02342136CA8C633'; }],
  ['short fingerprint', (b) => { b.alerts[0].fingerprint = 'e0234213'; }],
  ['alert status resolved', (b) => { b.alerts[0].status = 'resolved'; }],
  ['extra top-level key (newer Alertmanager)', (b) => { b.notification_reason = 'repeat'; }],
  ['routeLabels', (b) => { b.routeLabels = { team: 'sre' }; }],
  ['routeLabels not strings', (b) => { b.routeLabels = { team: 1 }; }],
  ['extra alert key', (b) => { b.alerts[0].silenceURL = 'x'; }],
  ...['version', 'groupKey', 'truncatedAlerts', 'receiver', 'status', 'alerts', 'groupLabels', 'commonLabels', 'commonAnnotations', 'externalURL']
    .map((k): [string, (b: Body) => void] => [`without ${k}`, (b) => { delete b[k]; }]),
  ...['status', 'labels', 'annotations', 'startsAt', 'endsAt', 'generatorURL', 'fingerprint']
    .map((k): [string, (b: Body) => void] => [`alert without ${k}`, (b) => { delete b.alerts[1][k]; }]),
];

describe('webhook schema agrees with webhook-v4.schema.json', () => {
  it.each(mutations)('%s', (_name, mutate) => {
    const body = structuredClone(base);
    mutate(body);
    expect(WebhookPayloadSchema.safeParse(body).success).toBe(validate(body));
  });

  it('is not vacuous: most mutations are rejected by both', () => {
    const verdicts = mutations.map(([, mutate]) => { const b = structuredClone(base); mutate(b); return validate(b); });
    expect(verdicts.filter((v) => !v).length).toBe(mutations.length - 6);
  });

  it('on every captured delivery', () => {
    for (const d of [amCaptured('firing'), amCaptured('resolved'), amFixture('group-mixed-resolved'), amFixture('group-next')]) {
      expect(validate(d.body)).toBe(true);
      expect(WebhookPayloadSchema.safeParse(d.body).success).toBe(true);
    }
  });
});
