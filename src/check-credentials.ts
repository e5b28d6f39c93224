import { createHash, timingSafeEqual } from 'node:crypto';

export interface Credentials {
  bearerTokens: string[];
  basic?: { username: string; password: string };
}

/** "a, b" → ["a", "b"]: several tokens may be valid at once while one is being rotated. */
export function splitTokens(value: string | undefined): string[] {
  return (value ?? '').split(',').map((t) => t.trim()).filter(Boolean);
}

function same(a: string, b: string): boolean {
  // Hash both so lengths match and timing says nothing about the secret.
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/**
 * Checks an Authorization header against bearer tokens (several, for rotation) or basic auth,
 * as Alertmanager's http_config sends them. With nothing configured every request passes.
 */
export function checkAuthorization(header: string | undefined, creds: Credentials): boolean {
  if (creds.bearerTokens.length === 0 && !creds.basic) return true;
  if (!header) return false;
  // Exactly "<scheme> <credentials>": anything after the credentials ("Bearer tok junk") is refused.
  const parts = header.trim().split(/\s+/);
  if (parts.length !== 2) return false;
  const [scheme, value = ''] = parts;
  if (scheme?.toLowerCase() === 'bearer') return creds.bearerTokens.some((t) => same(value, t));
  if (scheme?.toLowerCase() === 'basic' && creds.basic) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    if (i < 0) return false;
    const userOk = same(decoded.slice(0, i), creds.basic.username);
    const passOk = same(decoded.slice(i + 1), creds.basic.password);
    return userOk && passOk;
  }
  return false;
}
