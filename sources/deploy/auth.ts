import { createHmac, timingSafeEqual } from 'node:crypto';
import { authorizationProblem, splitTokens } from '../../src/check-credentials.js';
import type { Delivery, Verdict } from '../../src/registration/source.js';
import { DEPLOY_FIX, type DeployConfig } from './config.js';

export const SIGNATURE_HEADER = 'x-lestrade-signature-256';

/** `sha256=<hex HMAC-SHA256 of the raw body>`, as a sender computes it. */
export function signBody(body: Buffer | string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * A notification carries a bearer token or a signature; with neither configured every one is refused
 * (401 naming the settings): the deploy webhook is never open. An Authorization header is judged here,
 * before the body is read; without one, the signature is checked over the raw body (`verify`).
 */
export function deployAuth(config: DeployConfig) {
  const tokens = splitTokens(config.token);
  const secrets = splitTokens(config.secret);
  const checkHeaders = (headers: Delivery['headers']): Verdict => {
    if (tokens.length === 0 && secrets.length === 0)
      return { ok: false, reason: 'no token or secret configured', fix: DEPLOY_FIX };
    const authorization = headers['authorization'];
    if (authorization !== undefined) {
      if (tokens.length === 0) return { ok: false, reason: 'a bearer token was sent but none is configured' };
      const problem = authorizationProblem(authorization, { bearerTokens: tokens });
      return problem ? { ok: false, reason: problem } : { ok: true };
    }
    if (headers[SIGNATURE_HEADER] === undefined)
      return { ok: false, reason: 'missing credentials: no Authorization or X-Lestrade-Signature-256 header' };
    return secrets.length ? { ok: true } : { ok: false, reason: 'a signature was sent but no secret is configured' };
  };
  const verify = ({ headers, rawBody }: Delivery): Verdict => {
    // A bearer token passed checkHeaders: nothing more to verify.
    if (headers['authorization'] !== undefined) return { ok: true };
    const given = Buffer.from(headers[SIGNATURE_HEADER] ?? '');
    const matches = secrets.some((s) => {
      const expected = Buffer.from(signBody(rawBody, s));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    return matches ? { ok: true } : { ok: false, reason: 'X-Lestrade-Signature-256 does not match the body' };
  };
  return { checkHeaders, verify };
}
