import type { Delivered, DeliveryContext } from '../src/delivery/destination.js';
import { PermanentError } from '../src/errors.js';
import { vendorFailure, vendorUnreachable } from '../src/outbound-http/http-failure.js';

export interface PostOptions {
  vendor: string;
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** The env var or key to name when the endpoint refuses us (e.g. TEAMS_WEBHOOK_URL). */
  setting: string;
}

/**
 * POSTs once, unless an earlier attempt with the same key was answered 2xx (remembered in the
 * memo): a job redelivered after success sends nothing. A dropped answer cannot be told from a
 * lost request, so that attempt is sent again: for an endpoint that cannot dedupe (Teams), exactly
 * once holds across our own retries only when the endpoint answered.
 */
export async function postOnce(key: string, opts: PostOptions, ctx: DeliveryContext): Promise<Delivered> {
  if ((await ctx.memo.get(`sent:${key}`)) === 'sent') return { id: key, url: null, action: 'unchanged' };
  // Remembered before the POST: a later attempt knows one may have reached the endpoint.
  const tries = Number((await ctx.memo.get(`sending:${key}`)) ?? '0') + 1;
  await ctx.memo.set(`sending:${key}`, String(tries));
  let res: Response;
  try {
    res = await fetch(opts.url, {
      method: 'POST',
      body: opts.body,
      headers: { 'content-type': 'application/json', ...opts.headers },
      signal: AbortSignal.timeout(opts.timeoutMs),
      redirect: 'error',
    });
  } catch (err) {
    throw vendorUnreachable(opts.vendor, err);
  }
  // A body we cannot read is judged by the status alone: the empty text only loses the vendor's error detail.
  const text = await res.text().catch(() => '');
  if (!res.ok) {
    const failure = vendorFailure(opts.vendor, res.status, (h) => res.headers.get(h), text);
    if (failure instanceof PermanentError) throw new PermanentError(`${failure.message}; check ${opts.setting}`);
    throw failure;
  }
  await ctx.memo.set(`sent:${key}`, 'sent');
  if (tries > 1)
    ctx.log.warn({ key, tries }, `${opts.vendor}: delivered after ${tries} tries; an earlier one may have arrived too`);
  return { id: key, url: null, action: 'created' };
}
