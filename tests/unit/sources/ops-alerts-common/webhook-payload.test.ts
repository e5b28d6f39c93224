import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/errors.js';
import { parseLosslessJson } from '../../../../sources/ops-alerts-common/lossless-json.js';
import {
  ActionPayloadSchema,
  detailsOf,
  EpochNanos,
  readActionPayload,
} from '../../../../sources/ops-alerts-common/webhook-payload.js';
import { jsmOpsFixtureText, type JsmOpsFixture } from '../../../fixtures/jsm-ops/fixtures.js';
import { opsgenieFixtureText, type OpsgenieFixture } from '../../../fixtures/opsgenie/fixtures.js';

const delivery = (text: string) => ({ headers: {}, rawBody: Buffer.from(text) });
const create = () =>
  parseLosslessJson(opsgenieFixtureText('create')) as { action: string; alert: Record<string, unknown> };
/** The create payload with one alert field changed; the path of the first issue when refused. */
function refusal(field: string, value: unknown): string | null {
  const p = create();
  p.alert[field] = value;
  const r = ActionPayloadSchema.safeParse(p);
  return r.success ? null : r.error.issues[0]!.path.join('.');
}

describe('OpsGenie-style action payloads, on real deliveries', () => {
  it.each(['create', 'close', 'acknowledge', 'addnote-human', 'addnote-own'] as OpsgenieFixture[])(
    "reads OpsGenie's %s",
    (name) => {
      const p = readActionPayload(delivery(opsgenieFixtureText(name)));
      expect(p.alert.alertId).toBe('70413a06-38d6-4c85-92b8-5ebc900d42e2-1718031599062');
      expect(p.alert.tinyId).toBe('1042');
    },
  );

  it.each(['create', 'close', 'addnote-human', 'addnote-own'] as JsmOpsFixture[])(
    "reads JSM Operations' %s",
    (name) => {
      expect(readActionPayload(delivery(jsmOpsFixtureText(name))).alert.tinyId).toBe('77');
    },
  );

  it('keeps the nanosecond updatedAt exact, and createdAt as epoch milliseconds', () => {
    const p = readActionPayload(delivery(opsgenieFixtureText('create')));
    expect(p).toMatchObject({
      action: 'Create',
      integrationName: 'Lestrade',
      alert: { updatedAt: '1718031599123000123', createdAt: 1718031599062, priority: 'P1' },
    });
    expect(p.alert.details).toEqual({
      alertname: 'CheckoutHighErrorRate',
      namespace: 'prod',
      severity: 'critical',
      runbook_url: 'https://runbooks.example.com/checkout-errors',
    });
  });

  it('says a body that is not JSON is not JSON', () => {
    expect(() => readActionPayload(delivery('{"alert":'))).toThrow(InputError);
    expect(() => readActionPayload(delivery('{"alert":'))).toThrow(/^request body is not valid JSON: /);
  });

  it('names the field a delivery gets wrong', () => {
    expect(() => readActionPayload(delivery(JSON.stringify({ ...create(), action: '' })))).toThrow(
      expect.objectContaining({ field: 'action' }),
    );
    expect(() => readActionPayload(delivery(JSON.stringify({ action: 'Create' })))).toThrow(
      expect.objectContaining({ field: 'alert' }),
    );
  });
});

describe('the alert inside an action payload', () => {
  it('needs an alert id', () => {
    expect(refusal('alertId', '')).toBe('alert.alertId');
    expect(refusal('alertId', undefined)).toBe('alert.alertId');
  });

  it('reads a numeric tinyId as text', () => {
    const p = create();
    p.alert.tinyId = 1042;
    expect(ActionPayloadSchema.parse(p).alert.tinyId).toBe('1042');
    expect(refusal('tinyId', true)).toBe('alert.tinyId');
  });

  it('reads createdAt as epoch milliseconds, from a number or a string of digits', () => {
    const p = create();
    p.alert.createdAt = '1718031599062';
    expect(ActionPayloadSchema.parse(p).alert.createdAt).toBe(1718031599062);
    expect(refusal('createdAt', '2024-06-10T15:00:00Z')).toBe('alert.createdAt');
    expect(refusal('createdAt', '1718031599062x')).toBe('alert.createdAt');
    expect(refusal('createdAt', 'x1718031599062')).toBe('alert.createdAt');
    expect(refusal('createdAt', 1.5)).toBe('alert.createdAt');
    expect(refusal('createdAt', null)).toBeNull();
  });

  it('keeps updatedAt as its exact decimal digits', () => {
    expect(EpochNanos.parse(1718031599123)).toBe('1718031599123');
    expect(EpochNanos.parse('1718031599123000123')).toBe('1718031599123000123');
    for (const bad of [-1, 1.5, '-1', '12a', 'a12', ''])
      expect(EpochNanos.safeParse(bad).success, String(bad)).toBe(false);
  });

  it('takes details only as an object (or nothing), saying what it expected', () => {
    const p = create();
    p.alert.details = ['a'];
    const r = ActionPayloadSchema.safeParse(p);
    expect(r.error?.issues[0]).toMatchObject({ path: ['alert', 'details'], message: 'expected an object of strings' });
    expect(refusal('details', 'text')).toBe('alert.details');
    expect(refusal('details', null)).toBeNull();
    expect(refusal('details', undefined)).toBeNull();
    expect(ActionPayloadSchema.safeParse({ ...create(), source: { name: 5 } }).error?.issues[0]?.path).toEqual([
      'source',
      'name',
    ]);
  });

  it.each([
    ['tags', ['a', 1]],
    ['teams', 'team'],
    ['responders', [{ id: 1 }]],
    ['note', 5],
    ['message', 5],
  ] as const)('refuses %s of the wrong type', (field, value) => {
    expect(refusal(field, value)).toMatch(new RegExp(`^alert\\.${field}`));
  });
});

describe('detailsOf', () => {
  it('turns every value into text, keeping a "__proto__" key as data', () => {
    const details = detailsOf(JSON.parse('{"a":"x","n":5,"b":false,"none":null,"o":{"k":[1]},"__proto__":"p"}'));
    expect(Object.entries(details)).toEqual([
      ['a', 'x'],
      ['n', '5'],
      ['b', 'false'],
      ['none', ''],
      ['o', '{"k":[1]}'],
      ['__proto__', 'p'],
    ]);
    expect(Object.getPrototypeOf(details)).toBe(Object.prototype);
  });

  it('takes an undefined value as empty text', () => {
    expect(detailsOf({ a: undefined })).toEqual({ a: '' });
  });

  it('is empty for anything but an object', () => {
    for (const raw of [null, undefined, 'text', 5, ['a']]) expect(detailsOf(raw), String(raw)).toEqual({});
  });
});
