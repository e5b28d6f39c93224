import type { z } from 'zod';
import { describeZodIssues, PermanentError } from '../../src/errors.js';
import { pagerDutyFailure, pagerDutyUnreachable } from './pagerduty-error.js';

export type QueryValue = string | number | boolean | readonly string[] | undefined;

export interface PdRequest<T extends z.ZodType> {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** The `From` header: the email of the user a write is made as. */
  from?: string;
  timeoutMs?: number;
  schema: T;
  /** What this call is, for error messages ("list notes of PT4KHLK"). */
  what: string;
}

export interface PdHttpOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

/**
 * One PagerDuty REST call over Node's fetch: REST API v2 headers, a timeout that aborts the
 * request, and every failure typed (see pagerduty-error.ts). Never retries or sleeps: a 429 or
 * 5xx goes back to the caller at once, and the queue tries again later.
 */
export async function pdRequest<T extends z.ZodType>(opts: PdHttpOptions, req: PdRequest<T>): Promise<z.infer<T>> {
  const url = new URL(`${opts.baseUrl}${req.path}`);
  for (const [key, value] of Object.entries(req.query ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value as readonly string[]) url.searchParams.append(key, v);
    else url.searchParams.set(key, String(value));
  }
  const headers: Record<string, string> = {
    authorization: `Token token=${opts.apiKey}`,
    accept: 'application/vnd.pagerduty+json;version=2',
    // The spec marks Content-Type required on every operation, reads included.
    'content-type': 'application/json',
    ...(req.from ? { from: req.from } : {}),
  };
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: req.method,
      headers,
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
      signal: AbortSignal.timeout(req.timeoutMs ?? opts.timeoutMs),
    });
    text = await res.text();
  } catch (err) {
    throw pagerDutyUnreachable(req.what, err);
  }
  if (!res.ok) throw pagerDutyFailure(req.what, res.status, res.headers, text);
  return parseAnswer(req.schema, text, req.what);
}

/** An answer that is not what the API documents is a permanent problem, not one to retry. */
function parseAnswer<T extends z.ZodType>(schema: T, text: string, what: string): z.infer<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PermanentError(`unexpected answer from PagerDuty (${what}): not JSON`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new PermanentError(`unexpected answer from PagerDuty (${what}): ${describeZodIssues(parsed.error.issues)}`);
  return parsed.data;
}
