import { describe, expect, it } from 'vitest';
import { signatureVerifier, verifySignature } from '../../../../sources/pagerduty/signature.js';
import { signature, signed } from '../../../fixtures/pagerduty/fixtures.js';

const body = Buffer.from('{"event":{"event_type":"incident.triggered","data":{"title":"né"}}}');
const sig = (secret: string, b: Buffer = body) => signature(b.toString('utf8'), secret);

describe('X-PagerDuty-Signature', () => {
  it('accepts a v1 HMAC-SHA256 of the raw body by a configured secret', () => {
    expect(verifySignature(body, sig('s1'), ['s1'])).toEqual({ ok: true });
    expect(verifySignature(body, sig('s1').toUpperCase().replace('V1=', 'v1='), ['s1'])).toEqual({ ok: true });
  });

  it('accepts any of several comma-separated signatures against any of two secrets (rotation either side)', () => {
    const header = [sig('old-pd-secret'), sig('new-pd-secret')].join(',');
    expect(verifySignature(body, header, ['new-pd-secret'])).toEqual({ ok: true });
    expect(verifySignature(body, header, ['old-pd-secret'])).toEqual({ ok: true });
    expect(verifySignature(body, `${sig('new-pd-secret')}, ${sig('other')}`, ['ours', 'new-pd-secret'])).toEqual({
      ok: true,
    });
    expect(verifySignature(body, `v0=abc,${sig('s2')}`, ['s1', 's2'])).toEqual({ ok: true });
  });

  it('refuses a bad signature, another body, a missing or malformed header', () => {
    const refused = (header: string | undefined, b = body) => verifySignature(b, header, ['s1', 's2']).ok;
    expect(refused(sig('guessed'))).toBe(false);
    expect(refused(sig('s1'), Buffer.from(`${body.toString()} `))).toBe(false);
    expect(refused(undefined)).toBe(false);
    expect(refused('')).toBe(false);
    expect(refused(sig('s1').replace('v1=', 'v2='))).toBe(false);
    expect(refused(sig('s1').slice(0, -2))).toBe(false);
    expect(refused(`sha256=${sig('s1').slice(3)}`)).toBe(false);
    expect(verifySignature(body, sig('guessed'), ['s1'])).toEqual({
      ok: false,
      reason: 'X-PagerDuty-Signature matches no configured secret',
    });
  });

  it('with no secret configured refuses everything, signed or not', () => {
    const verify = signatureVerifier(undefined);
    const d = signed({ event: {} }, ['anything']);
    expect(verify({ headers: d.headers, rawBody: Buffer.from(d.body) }).ok).toBe(false);
    expect(signatureVerifier(' , ')({ headers: d.headers, rawBody: Buffer.from(d.body) }).ok).toBe(false);
    expect(signatureVerifier('a, anything')({ headers: d.headers, rawBody: Buffer.from(d.body) }).ok).toBe(true);
  });
});
