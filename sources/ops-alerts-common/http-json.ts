import type { z } from 'zod';
import { describeZodIssues, PermanentError } from '../../src/errors.js';
import { vendorFailure, vendorUnreachable } from '../../src/outbound-http/http-failure.js';

export interface JsonCall {
  /** "OpsGenie", "JSM Operations": names the vendor in error messages. */
  vendor: string;
  /** What this call does, for error messages ("add note to alert X"). */
  what: string;
  method: 'GET' | 'POST' | 'PATCH';
  url: URL;
  headers: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
  /** The vendor's reason in an error body. */
  reasonOf: (body: unknown) => string;
  /** Headers that say how long to wait, consulted after Retry-After (e.g. X-RateLimit-Period-In-Sec). */
  waitHeaders?: string[];
  /** Non-2xx statuses returned as answers instead of thrown (e.g. 404 where "not there (yet)" is an answer). */
  accept?: number[];
}

export interface JsonAnswer {
  status: number;
  body: unknown;
}

/**
 * One HTTP request over Node's fetch, never retried here: a timeout aborts it, no answer is a
 * RetryableError (vendorUnreachable), 408/429/5xx are RetryableError with the vendor's wait,
 * other non-2xx are PermanentError with the vendor's reason. Nothing sleeps.
 */
export async function callJson(c: JsonCall): Promise<JsonAnswer> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(c.url, {
      method: c.method,
      headers: {
        accept: 'application/json',
        ...(c.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...c.headers,
      },
      body: c.body === undefined ? undefined : JSON.stringify(c.body),
      signal: AbortSignal.timeout(c.timeoutMs),
      redirect: 'error',
    });
    text = await res.text();
  } catch (err) {
    throw vendorUnreachable(`${c.vendor} (${c.what})`, err);
  }
  const body = parseOrText(text);
  if (res.ok || c.accept?.includes(res.status)) return { status: res.status, body };
  const get = (name: string) =>
    res.headers.get(name) ?? (name === 'retry-after' ? firstHeader(res, c.waitHeaders) : undefined);
  const err = vendorFailure(c.vendor, res.status, get, `${c.what}: ${c.reasonOf(body)}`.replace(/: $/, ''));
  answered.set(err, res.status);
  throw err;
}

/** A query string's parameters; undefined ones are left out. */
export type Query = Record<string, string | number | undefined>;

/** What one call adds to its API's settings. */
export interface CallOptions {
  query?: Query;
  body?: unknown;
  accept?: number[];
}

/** What every call of one API shares: the vendor's name, auth, timeout and how it says why and how long. */
export type ApiSettings = Pick<JsonCall, 'vendor' | 'timeoutMs' | 'headers' | 'reasonOf' | 'waitHeaders'>;

/** callJson for `path` below `base` (given without a trailing slash), with the query's defined parameters. */
export function callApi(
  api: ApiSettings,
  base: string,
  method: JsonCall['method'],
  path: string,
  what: string,
  opts: CallOptions = {},
): Promise<JsonAnswer> {
  const url = new URL(`${base}${path}`);
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  return callJson({ ...api, what, method, url, body: opts.body, accept: opts.accept });
}

const answered = new WeakMap<Error, number>();

/** The HTTP status a failed call was answered with; undefined when no answer came (or for other errors). */
export function statusOf(err: unknown): number | undefined {
  return err instanceof Error ? answered.get(err) : undefined;
}

function firstHeader(res: Response, names: string[] = []): string | undefined {
  for (const n of names) {
    const v = res.headers.get(n);
    if (v) return v;
  }
  return undefined;
}

function parseOrText(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Validates an answer; a vendor that answers something else is a permanent problem, not a retry. */
export function parseAnswer<T extends z.ZodType>(schema: T, data: unknown, vendor: string, what: string): z.infer<T> {
  const parsed = schema.safeParse(data);
  if (!parsed.success)
    throw new PermanentError(`unexpected answer from ${vendor} (${what}): ${describeZodIssues(parsed.error.issues)}`);
  return parsed.data;
}

/** A query parameter of a vendor's "next page" link: read, never followed (only our configured base URL is called). */
export function queryParam(link: string | null | undefined, name: string): string | undefined {
  if (!link) return undefined;
  try {
    return new URL(link, 'https://x.invalid').searchParams.get(name) ?? undefined;
  } catch {
    return undefined;
  }
}
