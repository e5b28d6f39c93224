import { describe, expect, it } from 'vitest';
import type { Delivery } from '../../../../src/registration/source.js';
import { signatureVerifier } from '../../../../sources/github/signature.js';
import { issuesLabeled, signed } from '../../../fixtures/github/payloads.js';

function delivery(s: { body: string; headers: Record<string, string> }): Delivery {
  return { headers: s.headers, rawBody: Buffer.from(s.body) };
}

describe('X-Hub-Signature-256', () => {
  const verify = signatureVerifier('new-secret, old-secret');

  it('accepts a delivery signed with either secret while rotating', async () => {
    expect(await verify(delivery(signed('issues', issuesLabeled(), 'new-secret')))).toEqual({ ok: true });
    expect(await verify(delivery(signed('issues', issuesLabeled(), 'old-secret')))).toEqual({ ok: true });
  });

  it('refuses another secret, a changed body, and a missing signature', async () => {
    expect(await verify(delivery(signed('issues', issuesLabeled(), 'guessed')))).toMatchObject({ ok: false });
    const s = signed('issues', issuesLabeled(), 'new-secret');
    expect(
      await verify({ headers: s.headers, rawBody: Buffer.from(s.body.replace('Codertocat', 'Mallory')) }),
    ).toMatchObject({ ok: false });
    const { 'x-hub-signature-256': _sig, ...unsigned } = s.headers;
    expect(await verify({ headers: unsigned, rawBody: Buffer.from(s.body) })).toEqual({
      ok: false,
      reason: 'no X-Hub-Signature-256 header',
    });
  });

  it('refuses the old SHA-1 header format and a signature of the empty body', async () => {
    const s = signed('issues', issuesLabeled(), 'new-secret');
    expect(
      await verify({
        headers: { ...s.headers, 'x-hub-signature-256': s.headers['x-hub-signature-256'].replace('sha256=', 'sha1=') },
        rawBody: Buffer.from(s.body),
      }),
    ).toMatchObject({ ok: false });
    const empty = signed('issues', '', 'new-secret');
    expect(await verify({ headers: empty.headers, rawBody: Buffer.alloc(0) })).toMatchObject({ ok: false });
  });

  it('lets a signed body that is not JSON through, for the route to answer 400', async () => {
    const body = 'not json';
    const good = signed('issues', null, 'new-secret');
    const { createHmac } = await import('node:crypto');
    const headers = {
      ...good.headers,
      'x-hub-signature-256': `sha256=${createHmac('sha256', 'new-secret').update(body).digest('hex')}`,
    };
    expect(await verify({ headers, rawBody: Buffer.from(body) })).toEqual({ ok: true });
  });

  it('with no secret configured, refuses everything and says why', async () => {
    const open = signatureVerifier(undefined);
    expect(await open(delivery(signed('issues', issuesLabeled(), 'anything')))).toEqual({
      ok: false,
      reason: expect.stringContaining('no webhook secret configured'),
    });
    expect(await signatureVerifier(' , ')(delivery(signed('issues', issuesLabeled(), '')))).toMatchObject({
      ok: false,
    });
  });
});
