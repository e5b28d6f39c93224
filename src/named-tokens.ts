import { createHash, timingSafeEqual } from 'node:crypto';

/** An API token and the name it stands for: who approved, re-ran or signed in is this name, never the token. */
export interface NamedToken {
  name: string;
  token: string;
}

/** Names of tokens: short, printable, shown in records and logs (never the token itself). */
export const TOKEN_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/**
 * The named token a presented token is, or null. Every configured token is compared (equal-length
 * digests, in constant time), so neither the time taken nor an early exit says which one matched.
 */
export function tokenNamed(presented: string, tokens: readonly NamedToken[]): NamedToken | null {
  const given = digest(presented);
  let found: NamedToken | null = null;
  for (const t of tokens) {
    if (timingSafeEqual(given, digest(t.token)) && found === null) found = t;
  }
  return found;
}

/**
 * The named token an `Authorization: Bearer <token>` header carries, or null: exactly
 * "Bearer <token>" (case-insensitive scheme), as check-credentials.ts reads it.
 */
export function bearerNamed(header: string | undefined, tokens: readonly NamedToken[]): NamedToken | null {
  if (!header || tokens.length === 0) return null;
  const parts = header.trim().split(/\s+/);
  if (parts.length !== 2 || parts[0]!.toLowerCase() !== 'bearer') return null;
  return tokenNamed(parts[1]!, tokens);
}
