import { describe, expect, it } from 'vitest';
import { alertmanagerDetails, detailsOf } from '../../../../sources/pagerduty/alert-details.js';
import { asText, parseJsonAlerts } from '../../../../sources/pagerduty/am-json-alerts.js';
import { parseTextBlocks } from '../../../../sources/pagerduty/am-text-blocks.js';
import { loadFixture, webhookAlerts, type EventsV2 } from '../../../fixtures/pagerduty/fixtures.js';

const details = (name: string) => loadFixture<EventsV2>(name).body.payload.custom_details;
/** What our Alertmanager webhook received for the same alerts: the truth both formats must give back. */
const truth = () =>
  webhookAlerts().map((a: any) => ({ labels: a.labels, annotations: a.annotations, source: a.generatorURL }));

describe('Alertmanager ≤ 0.29 details: text blocks (real 0.25 capture)', () => {
  it("gives back every firing alert's labels, annotations (multi-line description, runbook_url) and source", () => {
    const d = alertmanagerDetails(details('am-0.25-events-v2-firing.json'));
    expect(d?.format).toBe('text');
    expect(d?.firing).toEqual(truth());
    expect(d?.firing[0]?.annotations.description).toBe('p99 latency is 3.2s (threshold 2s).\nUpstream: payments-api');
    expect(d?.firing[0]?.annotations.runbook_url).toBe('https://runbooks.example.com/HighRequestLatency');
    expect(d?.resolved).toEqual([]);
    // The text format has no fingerprint or start time: no identity can be made from it.
    expect(d?.firing.every((a) => a.fingerprint === undefined && a.startsAt === undefined)).toBe(true);
  });

  it('splits firing and resolved', () => {
    const d = alertmanagerDetails(details('am-0.25-events-v2-one-resolved.json'));
    expect(d?.firing.map((a) => a.labels.instance)).toEqual(['checkout-7d9f:8080']);
    expect(d?.resolved.map((a) => a.labels.instance)).toEqual(['checkout-a1b2:8080']);
  });

  it('keeps an empty value, a value with " = " inside, a missing Source, and a "__proto__" label as data', () => {
    const text =
      'Labels:\n - alertname = A\n - __proto__ = x\n - expr = a = b\n - empty = \nAnnotations:\nSource: \nLabels:\n - alertname = B\nAnnotations:\n - summary = s\nSource: http://p/graph\n';
    const [a, b] = parseTextBlocks(text);
    expect(Object.getPrototypeOf(a!.labels)).toBe(Object.prototype);
    expect(Object.hasOwn(a!.labels, '__proto__')).toBe(true);
    expect(a).toEqual({
      labels: JSON.parse('{"alertname":"A","__proto__":"x","expr":"a = b","empty":""}'),
      annotations: {},
    });
    expect(b).toEqual({ labels: { alertname: 'B' }, annotations: { summary: 's' }, source: 'http://p/graph' });
  });

  it('reads nothing from empty details or stray text before the first block', () => {
    expect(parseTextBlocks('')).toEqual([]);
    expect(parseTextBlocks('garbage\n - a = b\nSource: x\n')).toEqual([]);
  });
});

describe('Alertmanager ≥ 0.30 details: JSON arrays', () => {
  it("gives back the same labels and annotations, plus each alert's fingerprint and startsAt", () => {
    const d = alertmanagerDetails(details('am-0.30-events-v2-firing.json'));
    expect(d?.format).toBe('json');
    expect(d?.firing.map(({ labels, annotations, source }) => ({ labels, annotations, source }))).toEqual(truth());
    expect(d?.firing.map((a) => [a.fingerprint, a.startsAt])).toEqual(
      webhookAlerts().map((a) => [a.fingerprint, a.startsAt]),
    );
    expect(d?.resolved).toEqual([]);
  });

  it("turns values the notifier's YAML re-parse retyped back into text", () => {
    expect([asText(500), asText(true), asText(null), asText(1.5)]).toEqual(['500', 'true', '', '1.5']);
    expect(asText({ Error: 'disk full' })).toBe('Error: disk full');
    expect(asText(['a', 'b'])).toBe('- a\n- b');
    const [a] = parseJsonAlerts([
      { labels: { code: 500, up: false, empty: null }, annotations: { description: { Error: 'disk full' } } },
    ]);
    expect(a).toEqual({
      labels: { code: '500', up: 'false', empty: '' },
      annotations: { description: 'Error: disk full' },
    });
  });

  it('leaves out a fingerprint that is not 16 hex digits (e.g. retyped to a number) rather than guess', () => {
    const alerts = parseJsonAlerts([
      { labels: {}, annotations: {}, fingerprint: 1234567890123456, startsAt: '2026-11-30T10:29:45.343618855Z' },
      { labels: {}, annotations: {}, fingerprint: 'not-a-fingerprint', startsAt: '2026-11-30T10:29:45Z' },
      { labels: {}, annotations: {}, fingerprint: 'ae93a7aea121d25a', startsAt: 20261130 },
      'not an alert',
      null,
    ]);
    expect(alerts.map((a) => [a.fingerprint, a.startsAt])).toEqual([
      [undefined, '2026-11-30T10:29:45.343618855Z'],
      [undefined, '2026-11-30T10:29:45Z'],
      ['ae93a7aea121d25a', undefined],
    ]);
  });
});

describe("which details are Alertmanager's, and where they are", () => {
  it('reads body.details, else cef_details.details, and a JSON object sent as a string', () => {
    const d = details('am-0.30-events-v2-firing.json');
    expect(detailsOf({ body: { details: d } })).toBe(d);
    expect(detailsOf({ body: { cef_details: { details: d } } })).toBe(d);
    expect(detailsOf({ body: { details: JSON.stringify(d) } })).toEqual(d);
    expect(detailsOf({ body: { details: 'plain text' } })).toBe('plain text');
    expect(detailsOf({ body: null })).toBeUndefined();
  });

  it("is null for other tools' details", () => {
    for (const other of [
      undefined,
      null,
      'text',
      [1],
      { customKey: 'Server is on fire!' },
      { firing: 3 },
      { firing: 'x' },
      { firing: { a: 1 }, num_firing: 1 },
    ]) {
      expect(alertmanagerDetails(other)).toBeNull();
    }
    expect(alertmanagerDetails(Object.create({ firing: 'Labels:\n', num_firing: '1' }))).toBeNull();
  });
});
