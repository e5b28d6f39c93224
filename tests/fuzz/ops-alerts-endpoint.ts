import fc from 'fast-check';
import { expect } from 'vitest';
import type { Issue } from '../../src/issue.js';
import { issueFromAction as jsmIssueFromAction } from '../../sources/jsm-ops/map.js';
import { AlertTriggersSchema, decideAction, type AlertTriggers } from '../../sources/ops-alerts-common/triggers.js';
import { ActionPayloadSchema, type ActionPayload } from '../../sources/ops-alerts-common/webhook-payload.js';
import { US_API } from '../../sources/opsgenie/config.js';
import { issueFromAction as ogIssueFromAction } from '../../sources/opsgenie/map.js';
import { jsmOpsFixtureText, type JsmOpsFixture } from '../fixtures/jsm-ops/fixtures.js';
import { opsgenieFixtureText, type OpsgenieFixture } from '../fixtures/opsgenie/fixtures.js';
import { startJsmOpsDouble, type JsmOpsDouble } from '../helpers/doubles/jsm-ops-double.js';
import { oddMap, oddString, RAW, toJsonText, type Path } from './arbitraries.js';
import type { Forgery, KnownDefect, WebhookEndpoint } from './webhook-endpoints.js';

/**
 * OpsGenie (`/webhooks/opsgenie`) and JSM Operations (`/webhooks/jsm-ops`) for the fuzz table. Both
 * take OpsGenie's outgoing-webhook action payloads, unsigned: the only credential is the shared
 * token in X-Lestrade-Token (checked before the body is read), and no delivery id is sent, so the
 * replay property (d) is skipped and repeats rely on intake's identity dedup (the alert id), which
 * (a) and (b) check. Their handlers make no API call while answering (sources/opsgenie/webhook.ts,
 * sources/jsm-ops/webhook.ts): every request the service makes to anything but loopback is refused
 * and recorded during the run, and teardown fails the file if there was any.
 *
 * The body is read again by the source with parseLosslessJson (alert.updatedAt is epoch
 * nanoseconds, past 2^53): the properties judge a body as parsed by parseKeepingBigIntegers below,
 * written apart from the source's parser, and the fixtures keep their nanosecond integers as raw
 * number tokens (RAW markers) through every mutation.
 */

type Json = Record<string, any>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Strings, and numbers (integer tokens, fraction, exponent), as JSON text writes them. */
const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * JSON.parse, except that an integer token past Number.MAX_SAFE_INTEGER becomes its exact digits
 * (a string), or a RAW marker with them when `mark` (so toJsonText writes it back as the same token).
 */
function parseBig(text: string, mark: boolean): unknown {
  const prefix = mark ? JSON.stringify(RAW).slice(1, -1) : '';
  return JSON.parse(
    text.replace(TOKENS, (t) =>
      t.startsWith('"') || !/^-?\d+$/.test(t) || Number.isSafeInteger(Number(t)) ? t : `"${prefix}${t}"`,
    ),
  );
}

/** How OpsGenie-style sources read a body: integers past 2^53 as their exact decimal string. */
export const parseKeepingBigIntegers = (text: string): unknown => parseBig(text, false);

/** The fixtures' texts as documents whose nanosecond integers stay raw number tokens when written again. */
const fixtureDoc = (text: string): unknown => parseBig(text, true);

const SAFE = 2 ** 53 - 1;
/** updatedAt as the vendor sends it: a nanosecond integer past 2^53 (raw token), a small one, or digits in a string. */
const updatedAt = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .bigInt({ min: BigInt(SAFE) + 1n, max: 10n ** 19n * 5n })
      .map((n) => ({ token: RAW + n.toString(), digits: n.toString() })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(1718031599123000123n, 9007199254740993n, 10n ** 22n)
      .map((n) => ({ token: RAW + n.toString(), digits: n.toString() })),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: SAFE }).map((n) => ({ token: n, digits: String(n) })) },
  { weight: 1, arbitrary: fc.stringMatching(/^\d{1,25}$/).map((s) => ({ token: s, digits: s })) },
);
/** createdAt, epoch milliseconds as a number or digits (any instant a Date can hold, so the mapper never falls back to now). */
const createdAt = fc.oneof(
  fc.integer({ min: -8.64e15, max: 8.64e15 }).map((ms) => ({ token: ms, ms })),
  fc.integer({ min: 0, max: 8.64e15 }).map((ms) => ({ token: String(ms), ms })),
);
/** Details as OpsGenie sends them (strings), sometimes with values of other types (read as text). */
const details = fc.oneof(
  { weight: 3, arbitrary: oddMap },
  {
    weight: 1,
    arbitrary: fc
      .array(
        fc.tuple(
          oddString,
          fc.oneof(
            oddString,
            fc.integer(),
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.boolean(),
            fc.constant(null),
            oddMap,
          ),
        ),
        { maxLength: 5 },
      )
      .map((p) => Object.fromEntries(p)),
  },
);

interface OpsRow {
  name: 'opsgenie' | 'jsm-ops';
  token: string;
  previousToken: string;
  tokenEnv: string;
  /** The other row's token: a credential, but not this endpoint's. */
  otherToken: string;
  fixtureTexts: () => string[];
  /** The fixtures' alert id, replaced by a fresh one per delivery. */
  fixtureAlertId: string;
  triggers: Record<string, unknown>;
  noteUser: () => string;
  /** Fields that make a Create pass this row's triggers. */
  triggerFields: fc.Arbitrary<Json>;
  setup(): Promise<{ env?: Record<string, string>; config?: Record<string, unknown> }>;
  teardown(): Promise<string[]>;
  issueFromAction(p: ActionPayload): Issue;
  report?(): string[];
  /**
   * Where the issue's alert link is built (file, function) when it throws URIError on an alert id
   * holding a lone surrogate: the known defect both rows share (see opsAlertsEndpoint).
   */
  linkBuilder: string;
}

/** Loopback only: anything else the service fetches is refused (as an unreachable network) and listed. */
function guardFetch(): { outbound: string[]; restore(): void } {
  const real = globalThis.fetch;
  const outbound: string[] = [];
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.hostname !== '127.0.0.1' && url.hostname !== 'localhost') {
      outbound.push(
        `${init?.method ?? (input instanceof Request ? input.method : 'GET')} ${url.origin}${url.pathname}`,
      );
      throw new TypeError('fetch failed', {
        cause: { code: 'ENETUNREACH', message: 'the fuzz suite allows no network' },
      });
    }
    return real(input, init);
  };
  return {
    outbound,
    restore: () => {
      globalThis.fetch = real;
    },
  };
}

const ALERT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-\d+$/;

function opsAlertsEndpoint(row: OpsRow): WebhookEndpoint {
  const triggers: AlertTriggers = AlertTriggersSchema.parse(row.triggers);
  const tokens = [row.token, row.previousToken];
  const headers = (token: string | null): Record<string, string> => ({
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'Apache-HttpClient/4.5.13 (Java/17.0.8)',
    ...(token === null ? {} : { 'x-lestrade-token': token }),
  });

  const forgeries: fc.Arbitrary<Forgery> = fc.oneof(
    fc.constantFrom<Forgery>(
      { kind: 'missing' },
      { kind: 'empty' },
      { kind: 'prefix' },
      { kind: 'suffix' },
      { kind: 'upper-case' },
      { kind: 'configured-list' },
      { kind: 'bearer' },
      { kind: 'basic-auth' },
      { kind: 'other-source' },
    ),
    fc
      .stringMatching(/^[\x21-\x7e][\x20-\x7e]{0,58}[\x21-\x7e]$/)
      .filter((t) => !tokens.includes(t.trim()))
      .map((value) => ({ kind: 'wrong-token', value })),
    fc.stringMatching(/^[\x21-\x2b\x2d-\x7e]{1,20}$/).map((value) => ({ kind: 'listed-with-token', value })),
  );
  function forge(_body: string, f: Forgery): Record<string, string> {
    const h = headers(
      {
        missing: null,
        empty: '',
        prefix: row.token.slice(0, -1),
        suffix: `${row.token}x`,
        'upper-case': row.token.toUpperCase(),
        // The setting's own value (both tokens, comma-separated): not one token.
        'configured-list': `${row.previousToken},${row.token}`,
        bearer: null,
        'basic-auth': null,
        'other-source': row.otherToken,
        'wrong-token': f.value ?? 'x',
        'listed-with-token': `${f.value}, ${row.token}`,
      }[f.kind] ?? null,
    );
    if (f.kind === 'bearer') h.authorization = `Bearer ${row.token}`;
    if (f.kind === 'basic-auth')
      h.authorization = `Basic ${Buffer.from(`${row.name}:${row.token}`).toString('base64')}`;
    return h;
  }

  /** What a generated payload's stored issue must hold, known from the generator rather than from the source's mapper. */
  const expectations = new WeakMap<object, { updatedAt: string; startedAt: string }>();
  /** The same, by alert id once freshened: the properties read back a parsed copy, not the generated object. */
  const expectedById = new Map<string, { updatedAt: string; startedAt: string }>();

  /** Valid Creates passing the row's triggers, with odd strings wherever the payload holds text. */
  const valid = fc
    .record({
      message: fc.oneof({ weight: 9, arbitrary: oddString }, { weight: 1, arbitrary: fc.constant(null) }),
      description: fc.option(oddString, { nil: undefined }),
      details: fc.option(details, { nil: undefined }),
      tags: fc.array(oddString, { maxLength: 5 }),
      priority: fc.oneof(fc.constantFrom('P1', 'P2', 'P3', 'P4', 'P5', 'p1', ' P2 '), oddString, fc.constant(null)),
      alias: fc.option(oddString, { nil: undefined }),
      entity: fc.option(oddString, { nil: undefined }),
      source: fc.option(oddString, { nil: undefined }),
      tinyId: fc.oneof(fc.stringMatching(/^\d{1,6}$/), fc.nat(), oddString),
      updatedAt,
      createdAt,
      integrationName: fc.option(oddString, { nil: undefined }),
      username: oddString,
      trigger: row.triggerFields,
    })
    .map((v) => {
      const alert: Json = {
        updatedAt: v.updatedAt.token,
        tags: v.tags,
        teams: [],
        recipients: [],
        message: v.message,
        username: v.username,
        alertId: row.fixtureAlertId,
        tinyId: v.tinyId,
        createdAt: v.createdAt.token,
        userId: '',
        priority: v.priority,
        responders: [],
        actions: [],
        ...(v.description === undefined ? {} : { description: v.description }),
        ...(v.details === undefined ? {} : { details: v.details }),
        ...(v.alias === undefined ? {} : { alias: v.alias }),
        ...(v.entity === undefined ? {} : { entity: v.entity }),
        ...(v.source === undefined ? {} : { source: v.source }),
      };
      for (const [k, x] of Object.entries(v.trigger))
        alert[k] = Array.isArray(x) && Array.isArray(alert[k]) ? [...alert[k], ...x] : x;
      const doc: Json = {
        source: { name: '', type: 'API' },
        alert,
        action: 'Create',
        integrationId: '5b7e0c1a-2d3f-4e5a-8b9c-0d1e2f3a4b5c',
        integrationType: 'Webhook',
        ...(v.integrationName === undefined ? {} : { integrationName: v.integrationName }),
      };
      expectations.set(doc, { updatedAt: v.updatedAt.digits, startedAt: new Date(v.createdAt.ms).toISOString() });
      return doc;
    });

  let counter = 0;
  function freshen(body: unknown, nextId: () => string): unknown {
    if (!isObject(body) || !isObject(body.alert)) return body;
    const a = body.alert;
    // Ids as the vendor writes them get a fresh one; a mutated (odd) id is delivered as it is.
    if (typeof a.alertId === 'string' && ALERT_ID.test(a.alertId)) {
      a.alertId = `${a.alertId.slice(0, 24)}${nextId().slice(-12)}-${1718031599062 + counter++}`;
      const e = expectations.get(body);
      if (e) expectedById.set(a.alertId, e);
    }
    return body;
  }

  const self = () => ({ noteUser: row.noteUser() });
  function expectedOpenIssues(body: unknown): Issue[] {
    const p = ActionPayloadSchema.parse(body);
    return decideAction(p, triggers, self()).kind === 'investigate' ? [row.issueFromAction(p)] : [];
  }

  const regressions: Array<Omit<KnownDefect, 'hits'>> = [
    {
      title: `${row.name}: a Create or Close whose alert.alertId holds a lone UTF-16 surrogate (no URL can name it) is not 5xx`,
      async demonstrate(t) {
        for (const action of ['Create', 'Close']) {
          const doc = fixtureDoc(row.fixtureTexts()[0]!) as Json;
          Object.assign(doc, { action });
          doc.alert.alertId = '\ud800';
          const r = await t.deliver(toJsonText(doc));
          expect(r.status, `${action}: ${JSON.stringify(r.body)}`).toBeLessThan(500);
        }
      },
    },
  ];

  let guard: ReturnType<typeof guardFetch> | undefined;
  return {
    name: row.name,
    path: `/webhooks/${row.name}`,
    env: {},
    async setup() {
      guard = guardFetch();
      const s = await row.setup();
      return {
        env: { ...s.env, [row.tokenEnv]: `${row.previousToken},${row.token}` },
        config: { triggers: row.triggers, ...s.config },
      };
    },
    async teardown() {
      guard?.restore();
      const calls = [...(guard?.outbound ?? []), ...(await row.teardown())];
      guard = undefined;
      if (calls.length)
        throw new Error(
          `/webhooks/${row.name} called the vendor while answering (it must not): ${calls.slice(0, 5).join('; ')}`,
        );
    },
    sign: () => headers(row.token),
    forgeries,
    forge,
    parseBody: parseKeepingBigIntegers,
    get fixtures() {
      // Creates weigh as much as the other actions together: they get furthest (filters, mapping, intake).
      const docs = row.fixtureTexts().map(fixtureDoc);
      const creates = docs.filter((d) => (d as Json).action === 'Create');
      return [...docs, ...Array.from({ length: Math.max(1, docs.length - creates.length) }, () => creates).flat()];
    },
    hotPaths: [
      ['action'],
      ['alert'],
      ['alert', 'alertId'],
      ['alert', 'message'],
      ['alert', 'description'],
      ['alert', 'details'],
      ['alert', 'details', 'alertname'],
      ['alert', 'tags'],
      ['alert', 'tags', 0],
      ['alert', 'priority'],
      ['alert', 'teams'],
      ['alert', 'teams', 0],
      ['alert', 'responders'],
      ['alert', 'responders', 0, 'name'],
      ['alert', 'responders', 0, 'type'],
      ['alert', 'createdAt'],
      ['alert', 'updatedAt'],
      ['alert', 'tinyId'],
      ['alert', 'alias'],
      ['alert', 'entity'],
      ['alert', 'source'],
      ['alert', 'username'],
      ['alert', 'note'],
      ['integrationName'],
      ['source'],
    ] satisfies Path[],
    hotValues: fc.oneof(
      fc.constantFrom(
        'Create',
        'Close',
        'AddNote',
        'Acknowledge',
        'P1',
        'p1',
        ' P2 ',
        'team',
        'payments',
        'Payments',
        'Lestrade',
        'lestrade@example.com',
      ),
      fc
        .constantFrom(
          '1718031599123000123',
          '9007199254740993',
          '99999999999999999999999',
          '-9007199254740993',
          '8640000000000001',
        )
        .map((d) => RAW + d),
      fc.constant('### Lestrade\n\nlestrade:rca:1042 sha=0123456789ab'),
      fc.array(fc.record({ id: oddString, type: fc.constantFrom('team', 'user'), name: oddString }), { maxLength: 2 }),
    ),
    valid,
    freshen,
    specAccepts: (body) => ActionPayloadSchema.safeParse(body).success,
    expectedOpenIssues,
    exactText(body) {
      const a = (body as Json).alert;
      const e = expectedById.get(a.alertId);
      const fixed = new Set(['priority', 'entity', 'alert_source']);
      const detailsAreText = isObject(a.details) && Object.values(a.details).every((v) => typeof v === 'string');
      return {
        ...(typeof a.message === 'string' && a.message ? { title: a.message } : {}),
        description: a.description ?? '',
        labels: (a.tags as string[]).filter((t) => !fixed.has(t)),
        fields: [
          ...(e
            ? ([
                [['raw', 'updatedAt'], e.updatedAt],
                [['startedAt'], e.startedAt],
              ] as Array<[Path, unknown]>)
            : []),
          ...(detailsAreText ? ([[['annotations'], a.details]] as Array<[Path, unknown]>) : []),
          [['identity'], a.alertId],
          [['locator', 'ref', 'alertId'], a.alertId],
        ],
      };
    },
    report: row.report,
    regressions,
  };
}

const OG_TOKEN = 'fuzz-opsgenie-token-7e21c4';
const JSM_TOKEN = 'fuzz-jsm-ops-token-0b93d8';
/** A team the OpsGenie fixtures carry, by id and by responder name. */
const PAYMENTS_TEAM = 'd1a9c2f0-5b7e-4a36-9c1e-2f8b7a6d5e41';

const OG_FIXTURES: OpsgenieFixture[] = ['create', 'close', 'acknowledge', 'addnote-human', 'addnote-own'];

/**
 * OpsGenie with the production API URL (the default, api.opsgenie.com): nothing is called during a
 * delivery, and with it the issue's url is the alert's page in the web app, as in production (a
 * double's URL would leave it null).
 */
export const opsgenieEndpoint: WebhookEndpoint = opsAlertsEndpoint({
  name: 'opsgenie',
  token: OG_TOKEN,
  previousToken: 'fuzz-opsgenie-previous-33aa',
  tokenEnv: 'OPSGENIE_WEBHOOK_TOKEN',
  otherToken: JSM_TOKEN,
  fixtureTexts: () => OG_FIXTURES.map((f) => opsgenieFixtureText(f)),
  fixtureAlertId: '70413a06-38d6-4c85-92b8-5ebc900d42e2-1718031599062',
  triggers: { teams: [PAYMENTS_TEAM, 'Payments'] },
  noteUser: () => 'Lestrade',
  triggerFields: fc.oneof(
    fc.constant({ teams: [PAYMENTS_TEAM] }),
    fc
      .constantFrom('Payments', 'payments', 'PAYMENTS')
      .map((name) => ({ responders: [{ id: 'ae5b5a1c-0000-4000-8000-000000000001', type: 'team', name }] })),
  ),
  async setup() {
    return { env: { OPSGENIE_API_KEY: 'fuzz-opsgenie-api-key' } };
  },
  async teardown() {
    return [];
  },
  issueFromAction: (p) => ogIssueFromAction(p, { apiUrl: US_API }, 'open'),
  linkBuilder:
    'alertUrl in sources/opsgenie/map.ts (with the US or EU API URL, where it makes a link; issueFromAction)',
});

let jsm: JsmOpsDouble | undefined;
const JSM_FIXTURES: JsmOpsFixture[] = ['create', 'close', 'addnote-human', 'addnote-own'];

/**
 * JSM Operations against the JSM double as the Jira site (alert links point to it, as in the e2e
 * test): the double must see no request during the run.
 */
export const jsmOpsEndpoint: WebhookEndpoint = opsAlertsEndpoint({
  name: 'jsm-ops',
  token: JSM_TOKEN,
  previousToken: 'fuzz-jsm-ops-previous-5d10',
  tokenEnv: 'JSM_OPS_WEBHOOK_TOKEN',
  otherToken: OG_TOKEN,
  fixtureTexts: () => JSM_FIXTURES.map((f) => jsmOpsFixtureText(f)),
  fixtureAlertId: 'b5e0f6a1-7c2d-4e3f-9a8b-1c0d2e3f4a5b-1718031599062',
  triggers: { priorities: ['P1', 'P2'], tags: ['payments'] },
  noteUser: () => jsm?.email ?? '',
  triggerFields: fc.record({
    priority: fc.constantFrom('P1', 'p1', 'P2', 'p2'),
    tags: fc.constantFrom('payments', 'Payments', 'PAYMENTS').map((t) => [t]),
  }),
  async setup() {
    jsm = await startJsmOpsDouble();
    return {
      env: {
        JSM_OPS_SITE_URL: jsm.url,
        JSM_OPS_API_URL: jsm.url,
        JSM_OPS_EMAIL: jsm.email,
        JSM_OPS_API_TOKEN: jsm.apiToken,
      },
    };
  },
  async teardown() {
    const seen = (jsm?.requests ?? []).map((r) => `${r.method} ${r.path}`);
    await jsm?.close();
    jsm = undefined;
    return seen;
  },
  issueFromAction: (p) => {
    if (!jsm) throw new Error('jsm-ops endpoint: setup() has not run');
    return jsmIssueFromAction(p, { site: jsm.url, instance: new URL(jsm.url).host }, 'open');
  },
  linkBuilder: 'alertUrl in sources/jsm-ops/map.ts (whenever JSM_OPS_SITE_URL is set; issueFromAction)',
});
