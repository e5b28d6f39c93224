import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { composeComment } from '../../../../src/render/compose-comment.js';
import { locatorOf, severityOfPriority } from '../../../../sources/ops-alerts-common/alert-fields.js';
import { headerTokenCheck } from '../../../../sources/ops-alerts-common/header-token.js';
import { parseLosslessJson } from '../../../../sources/ops-alerts-common/lossless-json.js';
import {
  carriesAnyMarker,
  markedDigest,
  rcaDigest,
  renderNote,
} from '../../../../sources/ops-alerts-common/note-text.js';
import { requestStateOf } from '../../../../sources/ops-alerts-common/notes-api.js';

describe('parseLosslessJson: integers past 2^53 come back as their exact digits', () => {
  it('keeps epoch nanoseconds exact where JSON.parse rounds them', () => {
    const text = '{"alert":{"updatedAt":1718031599123000123,"createdAt":1718031599062,"neg":-9007199254740993}}';
    expect((JSON.parse(text) as { alert: { updatedAt: number } }).alert.updatedAt).toBe(1718031599123000000);
    expect(parseLosslessJson(text)).toEqual({
      alert: { updatedAt: '1718031599123000123', createdAt: 1718031599062, neg: '-9007199254740993' },
    });
  });

  it('leaves strings (escaped quotes included), floats, exponents and safe integers alone', () => {
    const text =
      '[ "a \\" 12345678901234567890 \\\\", 1.5e300, 12345678901234567890.5, 9007199254740991, {"k\\"":1e2} ]';
    expect(parseLosslessJson(text)).toEqual([
      'a " 12345678901234567890 \\',
      1.5e300,
      // eslint-disable-next-line no-loss-of-precision -- the literal is what JSON.parse would make of the text
      12345678901234567890.5,
      9007199254740991,
      { 'k"': 100 },
    ]);
  });

  it('is JSON.parse for any document, except that unsafe integer tokens become their digits; throws where JSON.parse throws', () => {
    // A JS number's JSON text is String(n): digits below 1e21, an exponent above (which stays a number).
    const oracle = (text: string) =>
      JSON.parse(text, (_k, v: unknown) =>
        typeof v === 'number' && !Number.isSafeInteger(v) && /^-?\d+$/.test(String(v)) ? String(v) : v,
      );
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        expect(parseLosslessJson(text)).toEqual(oracle(text));
      }),
      { numRuns: 500 },
    );
    expect(() => parseLosslessJson('{"a": 12345678901234567890')).toThrow(SyntaxError);
  });
});

describe('note text: the RCA, then the marker line with a digest of the RCA', () => {
  const locator = { key: '42', ref: { alertId: 'a-1' } };
  const doc = (rca: string, inv = 'inv-1') =>
    composeComment({ rca, issueKey: '42', investigationId: inv, allowedHosts: new Set() });

  it('the digest follows the RCA, not which investigation wrote it', () => {
    expect(rcaDigest(doc('## Root cause\nA', 'inv-1'))).toBe(rcaDigest(doc('## Root cause\nA', 'inv-2')));
    expect(rcaDigest(doc('## Root cause\nA'))).not.toBe(rcaDigest(doc('## Root cause\nB')));
    expect(rcaDigest(doc('x'))).toMatch(/^[0-9a-f]{12}$/);
  });

  it('ends with the marker line, which is read back only for the same key', () => {
    const { text, sha } = renderNote(locator, doc('## Root cause\nPool exhausted.'));
    expect(text.split('\n').at(-1)).toBe(`lestrade:rca:42 sha=${sha}`);
    expect(markedDigest(text, locator)).toBe(sha);
    expect(markedDigest(text, { key: '4', ref: {} })).toBeNull();
    expect(markedDigest(`quoting lestrade:rca:42 sha=${sha} inline`, locator)).toBeNull();
    expect(carriesAnyMarker(text)).toBe(true);
    expect(carriesAnyMarker('a human note')).toBe(false);
  });

  it('fits the limit, cutting sections, and keeps the marker', () => {
    const rca = Array.from({ length: 10 }, (_, i) => `## Part ${i}\n${'evidence '.repeat(300)}`).join('\n\n');
    const { text, sha } = renderNote(locator, doc(rca), 5_000);
    expect(text.length).toBeLessThanOrEqual(5_000);
    expect(text).toMatch(/cut to fit the note size limit/);
    expect(markedDigest(text, locator)).toBe(sha);
  });
});

describe('priorities, locator, request states', () => {
  it('P1..P5 map onto severities through a Map; anything else is unknown', () => {
    expect(['P1', 'P2', 'P3', 'P4', 'P5', 'p1', ' P2 '].map(severityOfPriority)).toEqual([
      'critical',
      'high',
      'warning',
      'info',
      'info',
      'critical',
      'high',
    ]);
    expect(['P6', 'constructor', '__proto__', '', undefined].map(severityOfPriority)).toEqual([
      'unknown',
      'unknown',
      'unknown',
      'unknown',
      'unknown',
    ]);
  });

  // Issue 16, defect 9: tinyIds are reused, and the locator's key is what write-backs are locked,
  // remembered and superseded by. This test failed before the fix (the key was the tinyId).
  it('the locator keys on the alert id and shows the tiny id to people', () => {
    expect(locatorOf({ id: 'abc-1', tinyId: '42' })).toEqual({ key: 'abc-1', label: '#42', ref: { alertId: 'abc-1' } });
    expect(locatorOf({ id: 'abc-2', tinyId: '42' }).key).not.toBe(locatorOf({ id: 'abc-1', tinyId: '42' }).key);
    expect(locatorOf({ id: 'abc-1' })).toEqual({ key: 'abc-1', ref: { alertId: 'abc-1' } });
  });

  it('request status: success, still processing, failed (permanent when the alert is gone)', () => {
    expect(requestStateOf(true, 'Added note')).toEqual({ state: 'success' });
    expect(requestStateOf(false, 'Processing')).toEqual({ state: 'processing' });
    expect(requestStateOf(false, 'Internal error')).toEqual({
      state: 'failed',
      reason: 'Internal error',
      permanent: false,
    });
    expect(requestStateOf(false, 'Alert does not exist')).toEqual({
      state: 'failed',
      reason: 'Alert does not exist',
      permanent: true,
    });
    expect(requestStateOf(null, null)).toMatchObject({ state: 'failed', permanent: false });
  });
});

describe('header token (unsigned webhooks): X-Lestrade-Token, compared in constant time', () => {
  const check = headerTokenCheck('old-token, new-token', 'OPSGENIE_WEBHOOK_TOKEN');

  it('accepts either of two tokens while rotating', () => {
    expect(check({ 'x-lestrade-token': 'old-token' })).toEqual({ ok: true });
    expect(check({ 'x-lestrade-token': ' new-token ' })).toEqual({ ok: true });
  });

  it('refuses a wrong, partial or missing token, and a token sent elsewhere', () => {
    for (const given of ['new-toke', 'new-token2', 'old-token, new-token', 'NEW-TOKEN']) {
      expect(check({ 'x-lestrade-token': given }), given).toEqual({
        ok: false,
        reason: 'X-Lestrade-Token matches no configured OPSGENIE_WEBHOOK_TOKEN',
      });
    }
    expect(check({})).toEqual({ ok: false, reason: 'no X-Lestrade-Token header' });
    expect(check({ 'x-lestrade-token': '' })).toEqual({ ok: false, reason: 'no X-Lestrade-Token header' });
    expect(check({ authorization: 'Bearer new-token' }).ok).toBe(false);
  });

  it('with no token configured, refuses everything', () => {
    const none = headerTokenCheck(undefined, 'JSM_OPS_WEBHOOK_TOKEN');
    expect(none({ 'x-lestrade-token': 'anything' })).toEqual({
      ok: false,
      reason: 'no JSM_OPS_WEBHOOK_TOKEN configured',
    });
    expect(headerTokenCheck(' , ', 'X')({ 'x-lestrade-token': ',' }).ok).toBe(false);
  });
});
