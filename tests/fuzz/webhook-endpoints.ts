import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import type { Issue } from '../../src/issue.js';
import { issuesFromWebhook } from '../../sources/alertmanager/map.js';
import { WebhookPayloadSchema } from '../../sources/alertmanager/schema.js';
import { amCaptured, amFixture } from '../helpers/fixtures.js';
import { oddMap, oddString, type Path } from './arbitraries.js';
import { github } from './github-endpoint.js';
import { jiraEndpoint } from './jira-endpoint.js';
import { jsmOpsEndpoint, opsgenieEndpoint } from './ops-alerts-endpoint.js';
import { pagerdutyEndpoint } from './pagerduty-endpoint.js';

/**
 * Every webhook the fuzz properties run against: its path, how to authenticate a delivery, real
 * payloads to mutate, a generator of valid payloads, the vendor's own schema, and what a valid
 * payload should be stored as. Rows: Alertmanager (bearer token), GitHub, Jira and PagerDuty (HMAC
 * signers), OpsGenie and JSM Operations (a header token).
 */
export interface WebhookEndpoint {
  name: string;
  path: string;
  /** Service environment that switches the endpoint's authentication on. */
  env: Record<string, string>;
  /**
   * Starts what the endpoint needs before the service (a vendor double the handler calls), and
   * returns more service environment and the endpoint's `sources.<name>` configuration.
   */
  setup?(): Promise<{ env?: Record<string, string>; config?: Record<string, unknown> }>;
  teardown?(): Promise<void>;
  /**
   * Headers of an authentic delivery of this exact body text (a bearer token, or an HMAC of the
   * body). Endpoints with delivery ids use a fresh one per call unless `deliveryId` is given.
   */
  sign(body: string, opts?: { deliveryId?: string }): Record<string, string>;
  /** The header carrying the vendor's delivery id, on which replays are dropped; absent when the vendor has none. */
  deliveryIdHeader?: string;
  /** Forged authentication, as data (printed in counterexamples); `forge` turns one into the headers of a delivery. */
  forgeries: fc.Arbitrary<Forgery>;
  forge(body: string, forgery: Forgery, deliveryId?: string): Record<string, string>;
  /**
   * How the source reads a body's text, when not as JSON.parse does: OpsGenie and JSM re-read it
   * keeping integers beyond 2^53 exact. Every property judges a payload as parsed by this.
   */
  parseBody?(text: string): unknown;
  /** Real deliveries, to mutate. */
  fixtures: unknown[];
  /** Paths the source reads, mutated more often than a uniformly picked path would be (see focusedMutationsOf). */
  hotPaths?: Path[];
  /** Values worth putting at those paths besides any JSON and odd strings (e.g. rich-text documents). */
  hotValues?: fc.Arbitrary<unknown>;
  /** Valid payloads with odd strings wherever the vendor allows any string. */
  valid: fc.Arbitrary<unknown>;
  /** Gives a payload's items identities never used before (so a run's claims are all new). */
  freshen(body: unknown, nextId: () => string): unknown;
  /** The vendor's published schema (or ours written from its source): what a real sender can send. Such a payload is answered 200. */
  specAccepts(body: unknown): boolean;
  /**
   * The source's own schema, when it is looser than the vendor's (it keeps only what it reads):
   * what it refuses is answered 4xx and creates nothing. Default: specAccepts.
   */
  sourceAccepts?(body: unknown): boolean;
  /** What a valid payload should be stored as, one Issue per open item, in order. */
  expectedOpenIssues(body: unknown): Issue[];
  /**
   * Vendor text that must be stored exactly as the first open issue's title and description (where
   * the payload holds it as text), label names that must be keys of its labels, valued "true", and
   * other values at paths of the stored issue (e.g. ['raw', 'updatedAt']), known apart from the source's mapper.
   */
  exactText?(body: unknown): {
    title?: string;
    description?: string;
    labels?: string[];
    fields?: Array<[Path, unknown]>;
  };
  /** What the vendor double saw that its spec refuses (requests the service should not have sent), for FUZZ_STATS. */
  report?(): string[];
  /** Defects the properties found in src/ or sources/, not fixed yet: see KnownDefect. */
  knownDefects?: KnownDefect[];
  /** Defects the properties found and that are fixed: each minimal counterexample runs as a regression test. */
  regressions?: Array<Omit<KnownDefect, 'hits'>>;
  /** Runs per property where this row's deliveries are slower (API calls to a double); see DEFAULT_RUNS. */
  runs?: Partial<Runs>;
}

/** fast-check runs per property, bounded so that all fuzz files together stay well under 40 s on two cores. */
export interface Runs {
  anyJson: number;
  mutations: number;
  valid: number;
  forged: number;
  replay: number;
}
export const DEFAULT_RUNS: Runs = { anyJson: 200, mutations: 300, valid: 100, forged: 60, replay: 40 };

/**
 * A defect the properties found and this suite may not fix. Payloads that hit it are left out of
 * the properties (narrowed with fc.pre), and its minimal counterexample runs as `it.fails`: when
 * the defect is fixed that test turns red, and the narrowing and this entry should go.
 */
export interface KnownDefect {
  /** What goes wrong and where (file, function). */
  title: string;
  hits(body: unknown): boolean;
  /** Asserts the behaviour the properties want on the minimal counterexample; fails today. */
  demonstrate(t: DefectHarness): Promise<void>;
}

export interface DefectHarness {
  /** Posts a correctly signed delivery (fresh delivery id) and answers its status, JSON body and how many investigations it created. */
  deliver(text: string): Promise<{ status: number; body: unknown; createdNow: number }>;
}

/** A forged credential: its kind, and a value where it has one (another secret, a garbage header). */
export interface Forgery {
  kind: string;
  value?: string;
}

const amSchema = JSON.parse(
  readFileSync(new URL('../fixtures/alertmanager/webhook-v4.schema.json', import.meta.url), 'utf8'),
);
// strictNumbers: JSON text such as 1e400 parses to Infinity, which no sender writes and plain AJV takes for an integer.
const amValidate = new (Ajv2020 as unknown as typeof Ajv2020.default)({
  strict: false,
  allErrors: false,
  strictNumbers: true,
}).compile(amSchema);
const AM_TOKEN = 'fuzz-alertmanager-token-5f1c';

const rfc3339 = fc
  .record({
    year: fc.integer({ min: 1, max: 9999 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    h: fc.integer({ min: 0, max: 23 }),
    m: fc.integer({ min: 0, max: 59 }),
    s: fc.integer({ min: 0, max: 59 }),
    frac: fc.option(fc.stringMatching(/^[0-9]{1,9}$/), { nil: undefined }),
    zone: fc.oneof(
      fc.constant('Z'),
      fc
        .tuple(fc.constantFrom('+', '-'), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
        .map(([sign, hh, mm]) => `${sign}${String(hh).padStart(2, '0')}:${String(mm).padStart(2, '0')}`),
    ),
  })
  .map(
    (t) =>
      `${String(t.year).padStart(4, '0')}-${String(t.month).padStart(2, '0')}-${String(t.day).padStart(2, '0')}T${[t.h, t.m, t.s].map((n) => String(n).padStart(2, '0')).join(':')}${t.frac ? `.${t.frac}` : ''}${t.zone}`,
  );

/** An odd map that often has the keys the mapping reads (alertname, severity, summary, ...), so titles get odd too. */
const withKeys = (names: string[]) =>
  fc
    .tuple(oddMap, fc.dictionary(fc.constantFrom(...names), oddString, { maxKeys: names.length }))
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
  forgeries: fc.oneof(
    fc.constant({ kind: 'missing' }),
    fc
      .stringMatching(/^[\x21-\x7e]{1,60}$/)
      .filter((t) => t !== AM_TOKEN)
      .map((value) => ({ kind: 'wrong-token', value })),
    fc.constant({ kind: 'basic-auth' }),
  ),
  forge(_body, f) {
    let authorization: string | undefined;
    if (f.kind === 'wrong-token') authorization = `Bearer ${f.value}`;
    else if (f.kind === 'basic-auth') authorization = `Basic ${Buffer.from(`am:${AM_TOKEN}`).toString('base64')}`;
    return { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) };
  },
  fixtures: [
    ...(['group-firing-truncated', 'group-repeat-notification', 'group-mixed-resolved', 'group-next'] as const).map(
      (n) => amFixture(n).body,
    ),
    amCaptured('firing').body,
    amCaptured('resolved').body,
  ],
  valid: fc.record({
    version: fc.constant('4'),
    groupKey: oddString,
    truncatedAlerts: fc.nat(),
    receiver: oddString,
    status: fc.constant('firing'),
    alerts: fc.array(amAlert, { minLength: 1, maxLength: 3 }),
    groupLabels: oddMap,
    commonLabels: oddMap,
    commonAnnotations: oddMap,
    externalURL: oddString,
  }),
  freshen(body, nextId) {
    const alerts = (body as { alerts?: unknown } | null)?.alerts;
    if (Array.isArray(alerts)) {
      for (const a of alerts)
        if (a && typeof a === 'object' && typeof (a as { fingerprint?: unknown }).fingerprint === 'string')
          (a as { fingerprint: string }).fingerprint = nextId();
    }
    return body;
  },
  specAccepts: (body) => amValidate(body),
  expectedOpenIssues: (body) => issuesFromWebhook(WebhookPayloadSchema.parse(body)).filter((i) => i.status === 'open'),
};

/** The table: each row is fuzzed by tests/fuzz/webhooks-<name>.test.ts (one file each, so rows run in parallel). */
export const WEBHOOK_ENDPOINTS: WebhookEndpoint[] = [
  alertmanager,
  github,
  jiraEndpoint,
  pagerdutyEndpoint,
  opsgenieEndpoint,
  jsmOpsEndpoint,
];

export function endpointNamed(name: string): WebhookEndpoint {
  const found = WEBHOOK_ENDPOINTS.find((e) => e.name === name);
  if (!found) throw new Error(`no webhook endpoint ${name} in WEBHOOK_ENDPOINTS`);
  return found;
}
