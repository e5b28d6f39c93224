import type { Request } from 'express';

export const SESSION_COOKIE = 'lestrade_session';

/** One cookie's value from the Cookie header, or undefined. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/** Whether the browser reached us over https (directly, or through a proxy that says so). */
export function isHttps(req: Request): boolean {
  return req.secure || req.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'https';
}

/** The session cookie: HttpOnly, SameSite=Strict, Secure when the page is served over https. */
export function sessionCookie(req: Request, value: string, maxAgeSeconds: number): string {
  const secure = isHttps(req) ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure}`;
}

/**
 * True when a state-changing request comes from a page of this site: its Origin header (sent by
 * browsers on every POST) names our host. Either scheme, since a TLS-terminating proxy that sends
 * no X-Forwarded-Proto hides which one the browser used. Missing, "null" or foreign: refused.
 */
export function sameOrigin(req: Request): boolean {
  const origin = req.get('origin');
  const host = req.get('host');
  if (!origin || !host) return false;
  return origin === `https://${host}` || origin === `http://${host}`;
}
