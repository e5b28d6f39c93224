import { fileURLToPath } from 'node:url';
import nunjucks from 'nunjucks';
import type { Response } from 'express';
import type { SignedIn } from './dashboard-auth.js';

export const VIEWS_DIR = fileURLToPath(new URL('./views/', import.meta.url));
export const ASSETS_DIR = fileURLToPath(new URL('./assets/', import.meta.url));

/**
 * Every page's headers: no inline script or style, nothing from another origin, never framed; the
 * referrer only to this origin (no-referrer would make browsers send "Origin: null" on our own forms).
 * Even if untrusted text slipped past the sanitiser, the browser would refuse to run or fetch it.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

function formatDuration(ms: unknown): string {
  const n = Number(ms);
  if (!Number.isFinite(n)) return '';
  return n < 1000 ? `${Math.round(n)} ms` : `${(n / 1000).toFixed(1)} s`;
}

/** "2026-12-02T01:02:03.456Z" → "2026-12-02 01:02:03 UTC" (the page's script shows local time). */
function formatTime(iso: unknown): string {
  return typeof iso === 'string' && iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') : '';
}

export function createPageRenderer() {
  const env = new nunjucks.Environment(new nunjucks.FileSystemLoader(VIEWS_DIR, { noCache: false }), {
    autoescape: true,
    throwOnUndefined: false,
    trimBlocks: true,
    lstripBlocks: true,
  });
  env.addFilter('duration', formatDuration);
  env.addFilter('time', formatTime);
  env.addFilter('pretty', (v: unknown) => JSON.stringify(v, null, 2));
  env.addFilter('statusLabel', (s: unknown) => (typeof s === 'string' ? s.replace(/_/g, ' ') : ''));
  return (res: Response, view: string, context: Record<string, unknown>, status = 200): void => {
    const { session, authEnabled } = res.locals as SignedIn;
    const html = env.render(view, { ...context, csrf: session?.csrf ?? '', authEnabled, signedIn: Boolean(session) });
    res
      .status(status)
      .set({
        'content-security-policy': CONTENT_SECURITY_POLICY,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'same-origin',
        'cache-control': 'no-store',
      })
      .type('html')
      .send(html);
  };
}

export type RenderPage = ReturnType<typeof createPageRenderer>;
