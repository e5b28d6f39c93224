import { createHash, timingSafeEqual } from 'node:crypto';
import { splitTokens } from '../../src/check-credentials.js';
import type { Delivery, Verdict } from '../../src/registration/source.js';

/**
 * The header our token travels in. OpsGenie's and JSM's outgoing webhooks are unsigned; the only
 * secret they can carry is a custom header configured on the integration.
 */
export const TOKEN_HEADER = 'x-lestrade-token';

/** Equal-length digests, so neither the comparison nor its timing says anything about the token. */
function same(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/**
 * checkHeaders for a shared header token: one of the configured tokens (comma-separated, so an
 * old and a new one both pass while rotating). With none configured, every delivery is refused.
 */
export function headerTokenCheck(
  configured: string | undefined,
  setting: string,
): (headers: Delivery['headers']) => Verdict {
  const tokens = splitTokens(configured);
  return (headers) => {
    if (tokens.length === 0) return { ok: false, reason: `no ${setting} configured` };
    const given = headers[TOKEN_HEADER]?.trim();
    if (!given) return { ok: false, reason: 'no X-Lestrade-Token header' };
    // Every token is compared, so the time taken does not say which one matched.
    const matches = tokens.map((t) => same(given, t));
    return matches.some(Boolean)
      ? { ok: true }
      : { ok: false, reason: `X-Lestrade-Token matches no configured ${setting}` };
  };
}
