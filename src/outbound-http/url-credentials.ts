import { redactUrl } from '../redact.js';

export interface UrlWithCredentials {
  /** The URL to fetch: without user and password (fetch refuses URLs that carry them). */
  url: string;
  /** The URL to show in messages and logs: password blanked. */
  display: string;
  /** "Basic …" for the user and password the URL carried, if any. */
  authorization?: string;
}

/** http://user:pass@host/ → fetch http://host/ with basic auth, show http://user:***@host/. */
export function splitUrlCredentials(raw: string): UrlWithCredentials {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return { url: raw, display: redactUrl(raw) };
  }
  if (!u.username && !u.password) return { url: raw, display: raw };
  const user = safeDecode(u.username);
  const password = safeDecode(u.password);
  u.username = '';
  u.password = '';
  return {
    url: u.toString(),
    display: redactUrl(raw),
    authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
  };
}

/** Headers plus the URL's basic auth, unless an Authorization header is set explicitly. */
export function withUrlAuthorization(
  headers: Record<string, string>,
  authorization: string | undefined,
): Record<string, string> {
  if (!authorization || Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) return headers;
  return { authorization, ...headers };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
