import { createHmac, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { expect } from 'vitest';
import { z } from 'zod';
import type { Issue } from '../../src/issue.js';
import { isWellFormed } from '../../src/text.js';
import { PagerDutyTriggersSchema } from '../../sources/pagerduty/config.js';
import { toIssue } from '../../sources/pagerduty/map.js';
import {
  AlertSchema,
  IncidentNoteDataSchema,
  IncidentSchema,
  WebhookEnvelopeSchema,
  type PdAlert,
} from '../../sources/pagerduty/schema.js';
import { filterReason } from '../../sources/pagerduty/trigger.js';
import { alertFromEvent, incidentEvent, loadFixture, noteEvent } from '../fixtures/pagerduty/fixtures.js';
import {
  startPagerDutyDouble,
  type NewAlert,
  type PagerDutyDouble,
  type PdIncident as DoubleIncident,
} from '../helpers/doubles/pagerduty-double.js';
import { alertJson } from '../helpers/doubles/pagerduty-shapes.js';
import { oddMap, oddString, type Path } from './arbitraries.js';
import type { Forgery, KnownDefect, WebhookEndpoint } from './webhook-endpoints.js';

/**
 * PagerDuty (`/webhooks/pagerduty`) for the fuzz table: V3 webhook deliveries signed as PagerDuty
 * signs them (`X-PagerDuty-Signature: v1=<hex HMAC-SHA256 of the raw body>`, one per signing secret,
 * comma-separated: here one for a secret we do not have yet and one for ours), a fresh X-Webhook-Id,
 * and the service pointed at the PagerDuty double: while answering an incident.triggered the
 * handler reads the incident's alerts (GET /incidents/{id}/alerts), so each delivery's incident is
 * created in the double with alerts (Alertmanager's text or JSON details, or anyone else's), and
 * what a valid delivery should be stored as is the source's mapper over the incident and the alerts
 * as the double answers them. PagerDuty publishes no schema of V3 events: the source's own schemas
 * (schema.ts, trigger.ts) stand for what a sender can send. Triggers: the defaults (any service,
 * urgency high, any priority).
 */
const SECRET = 'fuzz-pagerduty-webhook-secret-6b2f90';
const PREVIOUS_SECRET = 'fuzz-pagerduty-previous-secret-c4d1';
/** A secret PagerDuty signs with too (rotating) that Lestrade does not have: its signature is skipped. */
const UNKNOWN_SECRET = 'fuzz-pagerduty-next-secret-0e77';
const WEB = 'https://acme.pagerduty.com';
const TRIGGERS = PagerDutyTriggersSchema.parse({});

let pd: PagerDutyDouble | undefined;
const double = (): PagerDutyDouble => {
  if (!pd) throw new Error('pagerduty endpoint: setup() has not run');
  return pd;
};

type Json = Record<string, any>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const hmac = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

function headers(body: string, o: { deliveryId?: string; signature?: string | null } = {}): Record<string, string> {
  const signature =
    o.signature === undefined ? `v1=${hmac(UNKNOWN_SECRET, body)},v1=${hmac(SECRET, body)}` : o.signature;
  return {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'PagerDuty-Webhook/V3.0',
    'x-webhook-id': o.deliveryId ?? randomUUID(),
    'x-webhook-subscription': 'PY1OQFC',
    ...(signature === null ? {} : { 'x-pagerduty-signature': signature }),
  };
}

const IncidentEventSchema = z.looseObject({ event: z.looseObject({ data: IncidentSchema }) });
const NoteEventSchema = z.looseObject({ event: z.looseObject({ data: IncidentNoteDataSchema }) });

/** What the source's schemas take (sources/pagerduty/trigger.ts decideEvent): the envelope, and the data of the events it reads. */
function sourceAccepts(doc: unknown): boolean {
  const envelope = WebhookEnvelopeSchema.safeParse(doc);
  if (!envelope.success) return false;
  const type = envelope.data.event.event_type;
  if (type === 'incident.triggered' || type === 'incident.resolved') return IncidentEventSchema.safeParse(doc).success;
  if (type === 'incident.annotated') return NoteEventSchema.safeParse(doc).success;
  return true;
}

/** PagerDuty's incident ids: P and six capitals or digits. Only such ids are freshened; a mutated one is delivered as it is. */
const PD_ID = /^P[A-Z0-9]{6,}$/;

/** Alerts the double holds for each freshened incident, as the API answers them (what the handler reads). */
const alertsById = new Map<string, PdAlert[]>();
/** What each generated incident's stored description must be, when the generator knows it (not for the lossy text format). */
const descriptionById = new Map<string, string>();
/** Alerts (and the expected description) of each generated payload, and the start of its incident id, until freshen gives it one. */
const generated = new WeakMap<object, { alerts: NewAlert[]; description?: string; idPrefix: string }>();

/** Alert sets for the fixtures' incidents, in turn: none, Alertmanager 0.25 (text), 0.30 (JSON), both, someone else's details. */
const FIXTURE_ALERT_SETS: NewAlert[][] = [
  [],
  [alertFromEvent('am-0.25-events-v2-firing.json')],
  [alertFromEvent('am-0.30-events-v2-firing.json')],
  [alertFromEvent('am-0.25-events-v2-one-resolved.json'), alertFromEvent('am-0.30-events-v2-firing.json')],
  [
    {
      summary: 'Disk full on db-1',
      details: { host: 'db-1', used: '99%', nested: { mount: '/var' } },
      severity: 'critical',
    },
  ],
];

/** The incident created in the double under this id, with these alerts; remembers them as the API answers them. */
function addIncident(id: string, alerts: NewAlert[]): void {
  const incident: DoubleIncident = double().addIncident({ id, title: 'fuzz', serviceId: 'PFUZZSV', alerts });
  const site = { web: WEB, api: double().url };
  alertsById.set(
    id,
    incident.alerts.map((a) => AlertSchema.parse(JSON.parse(JSON.stringify(alertJson(a, incident, site))))),
  );
}

let fixtureTurn = 0;
function freshen(body: unknown, nextId: () => string): unknown {
  if (!isObject(body) || !isObject(body.event)) return body;
  const data = body.event.data;
  const g = generated.get(body);
  if (isObject(data) && typeof data.id === 'string' && (g || PD_ID.test(data.id))) {
    const id = `${g?.idPrefix ?? ''}P${nextId().toUpperCase()}`;
    data.id = id;
    addIncident(id, g ? g.alerts : FIXTURE_ALERT_SETS[fixtureTurn++ % FIXTURE_ALERT_SETS.length]!);
    if (g?.description !== undefined) descriptionById.set(id, g.description);
  }
  if (
    isObject(data) &&
    isObject(data.incident) &&
    typeof data.incident.id === 'string' &&
    PD_ID.test(data.incident.id)
  ) {
    data.incident.id = `P${nextId().toUpperCase()}`;
  }
  return body;
}

function expectedOpenIssues(body: unknown): Issue[] {
  const e = IncidentEventSchema.parse(body);
  const type = WebhookEnvelopeSchema.parse(body).event.event_type;
  const incident = e.event.data;
  if (type !== 'incident.triggered' || filterReason(incident, TRIGGERS)) return [];
  // An incident the double does not hold answers 404, and an id no URL can name is never asked
  // for: either way it is investigated from the event alone.
  const alerts = isWellFormed(incident.id) ? (alertsById.get(incident.id) ?? []) : [];
  return [toIssue(incident, alerts, { instance: new URL(double().url).host })];
}

/** A plain PD timestamp, or any string (the schema takes any). */
const createdAt = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')),
  },
  { weight: 1, arbitrary: oddString },
);
/** A label or annotation value after Alertmanager ≥ 0.30's YAML re-parse: text, or retyped. */
const yamlValue = fc.oneof(
  { weight: 6, arbitrary: oddString },
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const yamlMap = (max: number) =>
  fc.array(fc.tuple(oddString, yamlValue), { maxLength: max }).map((p) => Object.fromEntries(p));
const severity = fc.constantFrom<NonNullable<NewAlert['severity']>>('critical', 'error', 'warning', 'info');

/** Someone else's details: an object (PagerDuty's spec: body.details is one) of odd text, or of any JSON. */
const plainAlerts = fc.array(
  fc.record({
    summary: oddString,
    details: fc.oneof(
      oddMap,
      fc.array(fc.tuple(oddString, fc.jsonValue({ maxDepth: 2 })), { maxLength: 4 }).map((p) => Object.fromEntries(p)),
    ),
    severity,
  }),
  { maxLength: 3 },
);

/** Alertmanager ≥ 0.30: arrays of alerts, every firing one carrying the same description. */
const amJsonAlerts = fc
  .record({
    description: oddString,
    alerts: fc.array(
      fc.record({
        summary: oddString,
        firing: fc.array(
          fc.record({
            labels: yamlMap(4),
            annotations: yamlMap(3),
            startsAt: fc.oneof(createdAt, fc.constant('2026-11-30T10:29:45.343618855Z')),
            generatorURL: oddString,
            fingerprint: fc.oneof(fc.stringMatching(/^[0-9a-f]{16}$/), oddString),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        severity,
      }),
      { minLength: 1, maxLength: 2 },
    ),
  })
  .map(({ description, alerts }) => ({
    description,
    alerts: alerts.map((a): NewAlert => ({
      summary: a.summary,
      severity: a.severity,
      details: {
        firing: a.firing.map((f) => ({
          status: 'firing',
          ...f,
          annotations: { ...f.annotations, description },
          endsAt: '0001-01-01T00:00:00Z',
        })),
        resolved: [],
        num_firing: a.firing.length,
        num_resolved: 0,
      },
    })),
  }));

/** Alertmanager ≤ 0.29: text blocks, values unescaped (a line break in a value continues it). */
const pair = fc.tuple(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/), oddString).map(([k, v]) => ` - ${k} = ${v}`);
const amTextAlerts = fc
  .array(
    fc.record({
      summary: oddString,
      blocks: fc.array(
        fc.record({
          labels: fc.array(pair, { maxLength: 4 }),
          annotations: fc.array(pair, { maxLength: 3 }),
          source: oddString,
        }),
        { minLength: 1, maxLength: 3 },
      ),
      severity,
    }),
    { minLength: 1, maxLength: 2 },
  )
  .map((alerts) =>
    alerts.map((a): NewAlert => ({
      summary: a.summary,
      severity: a.severity,
      details: {
        firing: a.blocks
          .map((b) => ['Labels:', ...b.labels, 'Annotations:', ...b.annotations, `Source: ${b.source}`].join('\n'))
          .join('\n'),
        resolved: '',
        num_firing: String(a.blocks.length),
        num_resolved: '0',
      },
    })),
  );

/** Valid incident.triggered deliveries (urgency high) with odd strings in the id, title, service and priority names, keys, URLs, and in the alerts read. */
const valid: fc.Arbitrary<unknown> = fc
  .record({
    // Ids are PagerDuty's (P and capitals), but the schema takes any string: sometimes an odd one, made unique by freshen.
    idPrefix: fc.oneof({ weight: 3, arbitrary: fc.constant('') }, { weight: 1, arbitrary: oddString }),
    title: oddString,
    number: fc.oneof(fc.integer({ min: 1, max: 10_000 }), fc.constant(2 ** 53 - 1)),
    incidentKey: fc.oneof(oddString, fc.constant(null)),
    htmlUrl: fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: oddString },
      { weight: 1, arbitrary: fc.constant(null) },
    ),
    createdAt,
    service: fc.oneof(fc.record({ id: fc.stringMatching(/^P[A-Z0-9]{6}$/), summary: oddString }), fc.constant(null)),
    priority: fc.oneof(fc.constantFrom('P1', 'p2', 'SEV-1', 'Sev 3', 'P5'), oddString, fc.constant(null)),
    alerts: fc.oneof(
      plainAlerts.map((alerts) => ({ alerts, format: 'plain' as const })),
      amJsonAlerts.map((a) => ({ ...a, format: 'json' as const })),
      amTextAlerts.map((alerts) => ({ alerts, format: 'text' as const })),
    ),
  })
  .map((v) => {
    const id = 'PFUZZ00';
    const data: Json = {
      id,
      type: 'incident',
      self: `https://api.pagerduty.com/incidents/${id}`,
      html_url: v.htmlUrl === undefined ? `${WEB}/incidents/${id}` : v.htmlUrl,
      number: v.number,
      status: 'triggered',
      incident_key: v.incidentKey,
      created_at: v.createdAt,
      title: v.title,
      service: v.service && {
        html_url: `${WEB}/services/${v.service.id}`,
        id: v.service.id,
        self: `https://api.pagerduty.com/services/${v.service.id}`,
        summary: v.service.summary,
        type: 'service_reference',
      },
      assignees: [],
      escalation_policy: { id: 'PUS0KTE', summary: 'Default', type: 'escalation_policy_reference' },
      teams: [],
      priority: v.priority === null ? null : { id: 'PSO75BM', summary: v.priority, type: 'priority_reference' },
      urgency: 'high',
      conference_bridge: null,
      resolve_reason: null,
    };
    const body = {
      event: {
        id: randomUUID(),
        event_type: 'incident.triggered',
        resource_type: 'incident',
        occurred_at: '2026-11-30T10:30:00.000Z',
        agent: { id: 'PLH1HKV', type: 'user_reference', summary: 'Tenex Engineer' },
        client: { name: 'PagerDuty' },
        data,
      },
    };
    const first = v.alerts.alerts[0]?.summary ?? '';
    let description: string | undefined;
    if (v.alerts.format === 'json') description = v.alerts.description;
    else if (v.alerts.format === 'plain') description = first !== v.title ? first : '';
    generated.set(body, { alerts: v.alerts.alerts, description, idPrefix: v.idPrefix });
    return body;
  });

/** A stand-in for a double's incident, so the fixtures can be built before any double runs. */
const FIXTURE_INCIDENT: DoubleIncident = {
  id: 'PT4KHLK',
  number: 1042,
  title: '[FIRING:2] HighRequestLatency prod',
  status: 'triggered',
  urgency: 'high',
  priority: 'P1',
  service: { id: 'PIJ90N7', name: 'Checkout' },
  createdAt: '2026-11-30T10:29:50Z',
  updatedAt: '2026-11-30T10:29:50Z',
  incidentKey: '897e9a433731a2caf8ac3130740630e8e263fb0c4208fc3c3878827dbb894053',
  alerts: [],
  notes: [],
};

/** Real deliveries (PagerDuty's docs' examples) and deliveries of every event the source reads, triggers weighted. */
function fixtures(): unknown[] {
  const triggered = loadFixture('v3-incident-triggered.json');
  const triggers = [
    triggered,
    incidentEvent('incident.triggered', FIXTURE_INCIDENT),
    incidentEvent('incident.triggered', { ...FIXTURE_INCIDENT, priority: null }),
  ];
  return [
    ...triggers,
    ...triggers,
    loadFixture('v3-incident-annotated.json'),
    incidentEvent('incident.resolved', FIXTURE_INCIDENT),
    incidentEvent('incident.acknowledged', FIXTURE_INCIDENT),
    // Filtered out: low urgency.
    incidentEvent('incident.triggered', { ...FIXTURE_INCIDENT, urgency: 'low' }),
    noteEvent('PT4KHLK', 'lestrade:rca:PT4KHLK sha=3f9a0c12be47\n\n### Lestrade — automated root-cause analysis', true),
    noteEvent('PT4KHLK', 'Looking into it.'),
  ];
}

/** Forged signatures: none, another secret's, another body's, a digit off, cut short, another scheme or version, garbage. */
const forgeries: fc.Arbitrary<Forgery> = fc.oneof(
  fc.constantFrom<Forgery>(
    { kind: 'missing' },
    { kind: 'empty' },
    { kind: 'one-digit-off' },
    { kind: 'truncated' },
    { kind: 'v0' },
    { kind: 'github-style' },
    { kind: 'unknown-secret-only' },
    { kind: 'sha1' },
    { kind: 'hmac-of-secretless' },
  ),
  fc
    .string({ minLength: 1, maxLength: 40 })
    .filter((s) => s !== SECRET && s !== PREVIOUS_SECRET)
    .map((value) => ({ kind: 'wrong-secret', value })),
  fc.string({ minLength: 1, maxLength: 10 }).map((value) => ({ kind: 'other-body', value })),
  fc.stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,78}[\x21-\x7e]$/).map((value) => ({ kind: 'garbage', value })),
);

function forge(body: string, f: Forgery, deliveryId?: string): Record<string, string> {
  const good = hmac(SECRET, body);
  const signature: string | null =
    {
      missing: null,
      empty: '',
      'one-digit-off': `v1=${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`,
      truncated: `v1=${good.slice(0, 63)}`,
      v0: `v0=${good}`,
      'github-style': `sha256=${good}`,
      'unknown-secret-only': `v1=${hmac(UNKNOWN_SECRET, body)}`,
      sha1: `v1=${createHmac('sha1', SECRET).update(body).digest('hex')}`,
      'hmac-of-secretless': `v1=${hmac('', body)}`,
      'wrong-secret': `v1=${hmac(f.value ?? '', body)}`,
      'other-body': `v1=${hmac(SECRET, body + (f.value ?? ' '))}`,
      garbage: f.value ?? '',
    }[f.kind] ?? null;
  return headers(body, { deliveryId, signature });
}

const regressions: Array<Omit<KnownDefect, 'hits'>> = [
  {
    title:
      'PagerDuty: an investigated incident.triggered whose id holds a lone UTF-16 surrogate (no URL can name it) is not 5xx',
    async demonstrate(t) {
      const r = await t.deliver(
        JSON.stringify(incidentEvent('incident.triggered', { ...FIXTURE_INCIDENT, id: '\ud800' })),
      );
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
    },
  },
];

export const pagerdutyEndpoint: WebhookEndpoint = {
  name: 'pagerduty',
  path: '/webhooks/pagerduty',
  env: {},
  async setup() {
    pd = await startPagerDutyDouble();
    return {
      env: {
        PAGERDUTY_API_KEY: pd.apiKey,
        PAGERDUTY_API_URL: pd.url,
        PAGERDUTY_FROM_EMAIL: pd.user.email,
        PAGERDUTY_WEBHOOK_SECRET: `${PREVIOUS_SECRET},${SECRET}`,
      },
    };
  },
  async teardown() {
    await pd?.close();
    pd = undefined;
  },
  sign: (body, o = {}) => headers(body, { deliveryId: o.deliveryId }),
  deliveryIdHeader: 'x-webhook-id',
  forgeries,
  forge,
  get fixtures() {
    return fixtures();
  },
  hotPaths: [
    ['event'],
    ['event', 'event_type'],
    ['event', 'data'],
    ['event', 'data', 'id'],
    ['event', 'data', 'title'],
    ['event', 'data', 'status'],
    ['event', 'data', 'urgency'],
    ['event', 'data', 'priority'],
    ['event', 'data', 'priority', 'summary'],
    ['event', 'data', 'service'],
    ['event', 'data', 'service', 'id'],
    ['event', 'data', 'service', 'summary'],
    ['event', 'data', 'html_url'],
    ['event', 'data', 'created_at'],
    ['event', 'data', 'number'],
    ['event', 'data', 'incident_key'],
    ['event', 'data', 'incident'],
    ['event', 'data', 'incident', 'id'],
    ['event', 'data', 'content'],
    ['event', 'data', 'trimmed'],
    ['event', 'agent'],
  ] satisfies Path[],
  // Fresh objects each time (freshen writes into what it is given).
  hotValues: fc.oneof(
    fc.constantFrom(
      'incident.triggered',
      'incident.resolved',
      'incident.annotated',
      'high',
      'low',
      'triggered',
      'resolved',
      'PT4KHLK',
      'lestrade:rca:PT4KHLK sha=3f9a0c12be47',
    ),
    fc.record({
      id: fc.constantFrom('PSO75BM', 'PIJ90N7'),
      summary: fc.oneof(fc.constantFrom('P1', 'SEV-2', '__proto__'), oddString),
    }),
  ),
  valid,
  freshen,
  specAccepts: sourceAccepts,
  sourceAccepts,
  expectedOpenIssues,
  exactText(body) {
    const i = IncidentSchema.parse((body as Json).event.data);
    // The description comes from the incident's alerts, which an id no URL can name never reads.
    const description = isWellFormed(i.id) ? descriptionById.get(i.id) : undefined;
    const fields: Array<[Path, unknown]> = [
      [['identity'], i.id],
      [['locator', 'ref', 'incidentId'], i.id],
      [['startedAt'], i.created_at],
      [['url'], i.html_url ?? null],
    ];
    if (i.service?.summary) fields.push([['labels', 'service'], i.service.summary]);
    if (i.priority?.summary) fields.push([['labels', 'priority'], i.priority.summary]);
    if (i.service?.id) fields.push([['annotations', 'service_id'], i.service.id]);
    if (i.number !== undefined) fields.push([['annotations', 'incident_number'], String(i.number)]);
    return { title: i.title, ...(description === undefined ? {} : { description }), fields };
  },
  report() {
    const seen = new Map<string, number>();
    const all = [
      ...double().violations.map((v) => ({ ...v, kind: 'request' })),
      ...double().responseViolations.map((v) => ({ ...v, method: 'answer', path: '', kind: 'answer' })),
    ];
    for (const v of all) {
      const k = `${v.kind} ${v.method} ${v.operationId ?? v.path.replace(/\/P[A-Z0-9]+/g, '/P…')}: ${v.errors.join('; ').replace(/\d+/g, 'N').slice(0, 120)}`;
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    return [...seen].map(([k, n]) => `${n} × ${k}`);
  },
  regressions,
  // Each trigger reads the incident's alerts from the double (twice per run in (b), for the repeat): fewer runs.
  runs: { mutations: 250, valid: 60 },
};
