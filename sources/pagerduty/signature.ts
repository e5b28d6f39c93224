import { createHmac, timingSafeEqual } from 'node:crypto';
import { splitTokens } from '../../src/check-credentials.js';
import type { Delivery, Verdict } from '../../src/registration/source.js';

const V1 = /^v1=([0-9a-f]{64})$/i;

/**
 * X-PagerDuty-Signature: comma-separated `v1=<hex HMAC-SHA256 of the raw body>`, one per signing
 * secret while PagerDuty rotates them. Accepted when any signature matches any of our secrets;
 * each comparison is constant-time over equal-length digests. Unknown versions are skipped.
 */
export function verifySignature(rawBody: Buffer, header: string | undefined, secrets: readonly string[]): Verdict {
  if (!header) return { ok: false, reason: 'no X-PagerDuty-Signature header' };
  const given = header
    .split(',')
    .map((s) => V1.exec(s.trim())?.[1])
    .filter((s): s is string => s !== undefined)
    .map((hex) => Buffer.from(hex, 'hex'));
  if (given.length === 0) return { ok: false, reason: 'X-PagerDuty-Signature has no v1=<hex> signature' };
  const expected = secrets.map((s) => createHmac('sha256', s).update(rawBody).digest());
  // Every pair is compared (no early exit), so timing says nothing about which matched.
  let match = false;
  for (const e of expected) for (const g of given) match = timingSafeEqual(e, g) || match;
  return match ? { ok: true } : { ok: false, reason: 'X-PagerDuty-Signature matches no configured secret' };
}

/** The webhook's verify step; with no secret configured every delivery is refused (never open). */
export function signatureVerifier(secretList: string | undefined): (d: Delivery) => Verdict {
  const secrets = splitTokens(secretList);
  if (secrets.length === 0)
    return () => ({ ok: false, reason: 'no PAGERDUTY_WEBHOOK_SECRET configured: every delivery is refused' });
  return (d) => verifySignature(d.rawBody, d.headers['x-pagerduty-signature'], secrets);
}
