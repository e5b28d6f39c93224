/**
 * Keeping secrets out of what Lestrade stores, logs and returns. A Redactor is built once from
 * the validated configuration (src/config/secrets.ts) and applied wherever text leaves the process
 * or lands in Redis, whatever produced that text (an LLM's error message, a tool's output, a URL).
 */

export const REDACTED = '[redacted]';

/** The URL with any password blanked, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    // Not a WHATWG URL (a cluster's host list, redis+cluster://u:p@a:1,b:2): blank the userinfo's password.
    return /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? redactUrlsIn(url) : '(unparseable URL)';
  }
}

/** scheme://user:password@ anywhere in free text (error messages quote URLs) → scheme://user:***@. */
export function redactUrlsIn(text: string): string {
  // Userinfo never holds quotes, backslashes or brackets, so a match stays inside one JSON string.
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:"'\\<>{}[\]|^`]*):[^\s/?#@"'\\<>{}[\]|^`]*@/gi, '$1:***@');
}

export interface Redactor {
  (text: string): string;
  /** Every string inside a JSON-like value, redacted (structure and keys are kept). */
  deep<T>(value: T): T;
}

/**
 * Secrets shorter than this are not redacted: a 1-3 character "secret" would blank ordinary
 * words everywhere, and is no secret anyway.
 */
export const MIN_SECRET_LENGTH = 4;

/**
 * Replaces every occurrence of each secret (as is, percent-encoded and JSON-escaped) with
 * "[redacted]". Vendor data is otherwise left as it is, so stored payloads read back exactly.
 */
export function createRedactor(secrets: Iterable<string | undefined | null>): Redactor {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (typeof s !== 'string' || s.length < MIN_SECRET_LENGTH) continue;
    forms.add(s);
    forms.add(JSON.stringify(s).slice(1, -1));
    try {
      forms.add(encodeURIComponent(s));
    } catch {
      /* not well-formed: the raw form is enough */
    }
  }
  const alternatives = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = alternatives.length ? new RegExp(alternatives.join('|'), 'g') : null;
  const text = ((t: string) => (pattern ? t.replace(pattern, REDACTED) : t)) as Redactor;
  text.deep = <T>(value: T): T => mapStrings(value, text) as T;
  return text;
}

/** For code paths built without a configuration (tests, tools): no secrets known. */
export const noSecrets: Redactor = createRedactor([]);

function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, f));
  if (value && typeof value === 'object') {
    // Object.fromEntries defines keys as data, so a "__proto__" key stays a key.
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)]));
  }
  return value;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
