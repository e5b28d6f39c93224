import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { splitTokens } from '../../src/check-credentials.js';
import type { Delivery, Verdict, WebhookHandler } from '../../src/registration/source.js';
import type { JiraConfig } from './config.js';

const OK: Verdict = { ok: true };

/** Equal-length digests, so neither the comparison nor its timing says anything about the secret. */
function same(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** `X-Hub-Signature: sha256=<hex HMAC of the raw body>`, checked against every configured secret. */
export function verifySignature(rawBody: Buffer, header: string | undefined, secrets: string[]): Verdict {
  if (!header) return { ok: false, reason: 'no X-Hub-Signature header' };
  const m = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!m) return { ok: false, reason: 'X-Hub-Signature is not sha256=<hex>' };
  const given = Buffer.from(m[1]!.toLowerCase(), 'hex');
  const matches = secrets.map((s) => timingSafeEqual(createHmac('sha256', s).update(rawBody).digest(), given));
  return matches.some(Boolean) ? OK : { ok: false, reason: 'X-Hub-Signature matches no configured secret' };
}

/** The shared token a delivery carries: X-Lestrade-Token, or the password of basic auth. */
export function presentedToken(headers: Delivery['headers']): string | undefined {
  const header = headers['x-lestrade-token'];
  if (header) return header.trim();
  const m = /^basic\s+(\S+)$/i.exec(headers.authorization ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i < 0 ? undefined : decoded.slice(i + 1);
}

export function checkToken(headers: Delivery['headers'], tokens: string[]): Verdict {
  const given = presentedToken(headers);
  if (given === undefined) return { ok: false, reason: 'no X-Lestrade-Token or basic-auth password' };
  const matches = tokens.map((t) => same(given, t));
  return matches.some(Boolean) ? OK : { ok: false, reason: 'token matches no configured JIRA_WEBHOOK_TOKEN' };
}

/**
 * The webhook is never open. With a secret, every delivery must be signed (the token is then not
 * accepted, so a leaked token cannot bypass signing); without one, it must carry the shared token;
 * with neither, everything is refused.
 */
export function webhookAuth(
  config: Pick<JiraConfig, 'webhookSecret' | 'webhookToken'>,
): Pick<WebhookHandler, 'checkHeaders' | 'verify'> {
  const secrets = splitTokens(config.webhookSecret);
  const tokens = splitTokens(config.webhookToken);
  if (secrets.length) return { verify: (d) => verifySignature(d.rawBody, d.headers['x-hub-signature'], secrets) };
  if (tokens.length) return { checkHeaders: (h) => checkToken(h, tokens) };
  return { checkHeaders: () => ({ ok: false, reason: 'no JIRA_WEBHOOK_SECRET or JIRA_WEBHOOK_TOKEN configured' }) };
}
