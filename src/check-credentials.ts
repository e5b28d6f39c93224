import { createHash, timingSafeEqual } from 'node:crypto';

export interface Credentials {
  bearerTokens: string[];
  basic?: { username: string; password: string };
}

/** "a, b" → ["a", "b"]: several tokens may be valid at once while one is being rotated. */
export function splitTokens(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
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
  return authorizationProblem(header, creds) === null;
}

/**
 * What is wrong with an Authorization header, for the log: missing, malformed or wrong
 * credentials, and which kind. Never quotes the header. Null when it passes.
 */
export function authorizationProblem(header: string | undefined, creds: Credentials): string | null {
  if (creds.bearerTokens.length === 0 && !creds.basic) return null;
  if (!header) return 'missing credentials: no Authorization header';
  // Exactly "<scheme> <credentials>": anything after the credentials ("Bearer tok junk") is refused.
  const parts = header.trim().split(/\s+/);
  if (parts.length !== 2) return 'malformed credentials: Authorization is not "<scheme> <credentials>"';
  const [scheme, value = ''] = parts;
  if (scheme?.toLowerCase() === 'bearer') {
    return creds.bearerTokens.some((t) => same(value, t))
      ? null
      : 'wrong credentials: the bearer token matches none configured';
  }
  if (scheme?.toLowerCase() !== 'basic') return 'wrong credentials: an unsupported scheme (Bearer or Basic expected)';
  if (!creds.basic) return 'wrong credentials: basic auth is not configured';
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) return 'malformed credentials: basic auth without a colon';
  const userOk = same(decoded.slice(0, i), creds.basic.username);
  const passOk = same(decoded.slice(i + 1), creds.basic.password);
  return userOk && passOk ? null : 'wrong credentials: basic-auth user or password';
}
