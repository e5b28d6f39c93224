import { createHmac, timingSafeEqual } from 'node:crypto';
import { splitTokens } from '../../src/check-credentials.js';
import type { Delivery, Verdict } from '../../src/registration/source.js';

/** Slack's replay window: a request older (or newer) than this is refused. */
export const MAX_SKEW_SECONDS = 300;

/**
 * The headers of a Slack request, before its body is read: a `v0=` signature and a timestamp within
 * five minutes of our clock (api.slack.com/authentication/verifying-requests-from-slack).
 */
export function checkSlackHeaders(headers: Delivery['headers'], now = Date.now()): Verdict {
  const signature = headers['x-slack-signature'];
  const timestamp = headers['x-slack-request-timestamp'];
  if (!signature || !timestamp) return { ok: false, reason: 'no X-Slack-Signature or X-Slack-Request-Timestamp' };
  if (!/^v0=[0-9a-f]{64}$/.test(signature)) return { ok: false, reason: 'X-Slack-Signature is not v0=<hex>' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'X-Slack-Request-Timestamp is not a number' };
  if (Math.abs(now / 1000 - Number(timestamp)) > MAX_SKEW_SECONDS)
    return { ok: false, reason: `X-Slack-Request-Timestamp is more than ${MAX_SKEW_SECONDS} s from now (stale)` };
  return { ok: true };
}

/** v0=HMAC-SHA256(secret, "v0:{timestamp}:{raw body}") under any of the secrets, compared in constant time. */
export function verifySlackSignature(secrets: string | undefined, delivery: Delivery): Verdict {
  const keys = splitTokens(secrets);
  const given = Buffer.from(delivery.headers['x-slack-signature'] ?? '');
  const timestamp = delivery.headers['x-slack-request-timestamp'] ?? '';
  const base = Buffer.concat([Buffer.from(`v0:${timestamp}:`), delivery.rawBody]);
  const ok = keys.some((key) => {
    const expected = Buffer.from(`v0=${createHmac('sha256', key).update(base).digest('hex')}`);
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  return ok ? { ok: true } : { ok: false, reason: 'X-Slack-Signature does not match any signing secret' };
}
