import { describe, expect, it } from 'vitest';
import { checkToken, verifySignature, webhookAuth } from '../../../../sources/jira/webhook-auth.js';
import { hubSignature } from '../../../fixtures/jira/fixtures.js';

const body = Buffer.from(JSON.stringify({ webhookEvent: 'jira:issue_created', timestamp: 1 }));
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('X-Hub-Signature (Cloud admin webhooks with a secret; Data Center with a secret)', () => {
  const secrets = ['old-secret', 'new-secret'];

  it('accepts a signature by either of two secrets (rotation)', () => {
    expect(verifySignature(body, hubSignature(body, 'old-secret'), secrets)).toEqual({ ok: true });
    expect(verifySignature(body, hubSignature(body, 'new-secret'), secrets)).toEqual({ ok: true });
    expect(
      verifySignature(body, hubSignature(body, 'new-secret').toUpperCase().replace('SHA256', 'sha256'), secrets),
    ).toEqual({ ok: true });
  });

  it('refuses a signature by another secret, over another body, or missing', () => {
    expect(verifySignature(body, hubSignature(body, 'guess'), secrets)).toMatchObject({
      ok: false,
      reason: 'X-Hub-Signature matches no configured secret',
    });
    expect(verifySignature(Buffer.concat([body, Buffer.from(' ')]), hubSignature(body, 'new-secret'), secrets).ok).toBe(
      false,
    );
    expect(verifySignature(body, undefined, secrets)).toMatchObject({ ok: false, reason: 'no X-Hub-Signature header' });
  });

  it('refuses other algorithms and malformed values', () => {
    const hex = hubSignature(body, 'new-secret').slice('sha256='.length);
    for (const header of [
      `sha1=${hex.slice(0, 40)}`,
      hex,
      `sha256=${hex.slice(0, 63)}`,
      `sha256=${hex}00`,
      'sha256=',
    ]) {
      expect(verifySignature(body, header, secrets).ok, header).toBe(false);
    }
  });
});

describe('shared token (Data Center webhooks without a secret)', () => {
  const tokens = ['t-old', 't-new'];

  it('accepts the token as X-Lestrade-Token or as the basic-auth password (any user name)', () => {
    expect(checkToken({ 'x-lestrade-token': 't-new' }, tokens).ok).toBe(true);
    expect(checkToken({ authorization: basic('jira', 't-old') }, tokens).ok).toBe(true);
    expect(checkToken({ authorization: basic('', 't-new') }, tokens).ok).toBe(true);
  });

  it('refuses a wrong, partial or missing token', () => {
    expect(checkToken({ 'x-lestrade-token': 't-ne' }, tokens).ok).toBe(false);
    expect(checkToken({ 'x-lestrade-token': 't-new2' }, tokens).ok).toBe(false);
    expect(checkToken({ authorization: basic('t-new', 'x') }, tokens).ok).toBe(false);
    expect(checkToken({ authorization: 'Bearer t-new' }, tokens).ok).toBe(false);
    expect(checkToken({}, tokens)).toMatchObject({ ok: false, reason: 'no X-Lestrade-Token or basic-auth password' });
  });
});

describe('which check applies', () => {
  it('with a secret, deliveries must be signed: a valid token is not enough', () => {
    const auth = webhookAuth({ webhookSecret: 's1, s2', webhookToken: 'tok' });
    expect(auth.checkHeaders).toBeUndefined();
    expect(auth.verify?.({ headers: { 'x-lestrade-token': 'tok' }, rawBody: body })).toMatchObject({ ok: false });
    expect(auth.verify?.({ headers: { 'x-hub-signature': hubSignature(body, 's2') }, rawBody: body })).toEqual({
      ok: true,
    });
  });

  it('with only a token, the token is checked in the headers', () => {
    const auth = webhookAuth({ webhookToken: 'tok' });
    expect(auth.verify).toBeUndefined();
    expect(auth.checkHeaders?.({ 'x-lestrade-token': 'tok' })).toEqual({ ok: true });
    expect(auth.checkHeaders?.({ 'x-hub-signature': hubSignature(body, 'tok') }).ok).toBe(false);
  });

  it('with neither, everything is refused: the webhook is never open', () => {
    const auth = webhookAuth({});
    expect(auth.checkHeaders?.({ authorization: basic('a', 'b'), 'x-lestrade-token': '' })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('no JIRA_WEBHOOK_SECRET'),
    });
    expect(auth.checkHeaders?.({})?.ok).toBe(false);
  });
});
