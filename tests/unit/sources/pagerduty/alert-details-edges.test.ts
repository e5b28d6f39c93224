import { describe, expect, it } from 'vitest';
import { alertmanagerDetails, detailsOf } from '../../../../sources/pagerduty/alert-details.js';
import { amAlertText } from '../../../../sources/pagerduty/am-alert.js';
import { asText, parseJsonAlerts } from '../../../../sources/pagerduty/am-json-alerts.js';

const BLOCK = 'Labels:\n - alertname = A\nAnnotations:\nSource: http://p\n';
const block = { labels: { alertname: 'A' }, annotations: {}, source: 'http://p' };

describe('details sent as text', () => {
  it('reads a JSON object even after leading spaces', () => {
    expect(detailsOf({ body: { details: ' \n{"firing":[]}' } })).toEqual({ firing: [] });
  });

  it('leaves text that is not a JSON object as it is: arrays, numbers, broken JSON', () => {
    for (const text of ['[1,2]', '5', '"x"', '{"firing":', 'plain'])
      expect(detailsOf({ body: { details: text } }), text).toBe(text);
  });
});

describe("which details are Alertmanager's", () => {
  it('needs firing with num_firing or resolved beside it', () => {
    expect(alertmanagerDetails({ firing: [], num_firing: 0 })).toEqual({ format: 'json', firing: [], resolved: [] });
    expect(alertmanagerDetails({ firing: [], resolved: [] })).toEqual({ format: 'json', firing: [], resolved: [] });
    expect(alertmanagerDetails({ firing: BLOCK, num_firing: 1 })).toEqual({
      format: 'text',
      firing: [block],
      resolved: [],
    });
    expect(alertmanagerDetails({ firing: BLOCK, resolved: '' })).toEqual({
      format: 'text',
      firing: [block],
      resolved: [],
    });
    expect(alertmanagerDetails({ firing: BLOCK, '': 1 })).toBeNull();
  });

  it('reads either list when the other is missing or of another kind', () => {
    expect(alertmanagerDetails({ firing: null, resolved: [{ labels: { alertname: 'R' } }] })).toEqual({
      format: 'json',
      firing: [],
      resolved: [{ labels: { alertname: 'R' }, annotations: {} }],
    });
    expect(alertmanagerDetails({ firing: null, resolved: BLOCK })).toEqual({
      format: 'text',
      firing: [],
      resolved: [block],
    });
    expect(alertmanagerDetails({ firing: BLOCK, resolved: null, num_firing: 1 })).toEqual({
      format: 'text',
      firing: [block],
      resolved: [],
    });
  });
});

describe('Alertmanager ≥ 0.30 alerts', () => {
  it('keep only a whole 16-hex fingerprint', () => {
    const fps = parseJsonAlerts([
      { fingerprint: 'xae93a7aea121d25a' },
      { fingerprint: 'ae93a7aea121d25ax' },
      { fingerprint: 'ae93a7aea121d25a' },
    ]).map((a) => a.fingerprint);
    expect(fps).toEqual([undefined, undefined, 'ae93a7aea121d25a']);
  });

  it('write a retyped mapping back one key per line', () => {
    expect(asText({ Error: 'disk full', code: 500 })).toBe('Error: disk full\ncode: 500');
  });
});

describe('an alert as text for the model', () => {
  it("lists labels, annotations, source and start in the notifier's layout", () => {
    expect(
      amAlertText({
        labels: { alertname: 'A', code: '500' },
        annotations: { summary: 's' },
        source: 'http://p/graph',
        startsAt: '2026-11-30T10:29:45Z',
      }),
    ).toBe(
      'Labels:\n - alertname = A\n - code = 500\nAnnotations:\n - summary = s\nSource: http://p/graph\nStartsAt: 2026-11-30T10:29:45Z',
    );
  });

  it('leaves out the source and start it does not have', () => {
    expect(amAlertText({ labels: {}, annotations: {} })).toBe('Labels:\nAnnotations:');
  });
});
