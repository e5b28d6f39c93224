import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * `X-Lestrade-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, one v1 per
 * secret while secrets rotate (as Stripe signs). A receiver accepts the delivery when any v1
 * matches one of its secrets and t is within its tolerance window (replay protection).
 */
export function signatureHeader(body: string, secrets: readonly string[], nowSeconds: number): string {
  const t = Math.floor(nowSeconds);
  return [`t=${t}`, ...secrets.map((s) => `v1=${hmac(s, `${t}.${body}`)}`)].join(',');
}

export function verifySignature(
  header: string,
  body: string,
  secrets: readonly string[],
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = Number(parts.find(([k]) => k === 't')?.[1]);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const given = parts.filter(([k]) => k === 'v1').map(([, v]) => Buffer.from(v ?? '', 'hex'));
  return secrets.some((s) => {
    const want = Buffer.from(hmac(s, `${t}.${body}`), 'hex');
    return given.some((g) => g.length === want.length && timingSafeEqual(g, want));
  });
}

function hmac(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}
