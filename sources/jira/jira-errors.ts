import { HttpException } from 'jira.js';
import type { PermanentError, RetryableError } from '../../src/errors.js';
import { vendorFailure, vendorUnreachable } from '../../src/outbound-http/http-failure.js';

const VENDOR = 'Jira';

interface HttpAnswer {
  status: number;
  headers: unknown;
  data: unknown;
}

/**
 * jira.js wraps an axios error that has a response in an HttpException (status set, the axios
 * error as `cause`); an axios error without one (refused, reset, timed out) is rethrown as is.
 */
function answerOf(err: unknown): HttpAnswer | null {
  const axiosLike = (e: unknown) =>
    (e as { response?: { status?: unknown; headers?: unknown; data?: unknown } } | undefined)?.response;
  const res = err instanceof HttpException ? axiosLike(err.cause) : axiosLike(err);
  return res && typeof res.status === 'number' ? { status: res.status, headers: res.headers, data: res.data } : null;
}

/** The HTTP status of a failed Jira call, or undefined when no answer came. */
export function jiraStatus(err: unknown): number | undefined {
  return answerOf(err)?.status;
}

function headerGetter(headers: unknown): (name: string) => string | undefined {
  return (name) => {
    if (!headers || typeof headers !== 'object') return undefined;
    const h = headers as { get?: (n: string) => unknown } & Record<string, unknown>;
    const v = typeof h.get === 'function' ? h.get(name) : h[name.toLowerCase()];
    // eslint-disable-next-line @typescript-eslint/no-base-to-string -- a header value: a string, a number or a list
    return v === undefined || v === null ? undefined : String(v);
  };
}

/** Jira's own reason: `errorMessages` and `errors` of its error body, else a message field. */
export function jiraReason(data: unknown): string {
  if (typeof data === 'string') return data.slice(0, 300);
  if (!data || typeof data !== 'object') return '';
  const d = data as { errorMessages?: unknown; errors?: unknown; message?: unknown };
  const messages = Array.isArray(d.errorMessages) ? d.errorMessages.map(String) : [];
  const fields =
    d.errors && typeof d.errors === 'object' ? Object.entries(d.errors).map(([k, v]) => `${k}: ${String(v)}`) : [];
  const all = [...messages, ...fields];
  if (all.length) return all.join('; ');
  return typeof d.message === 'string' ? d.message : '';
}

/** A failed jira.js call as a typed error: 408/429/5xx retryable (with Jira's wait), other 4xx permanent. */
export function toTypedError(err: unknown, what: string): RetryableError | PermanentError {
  const answer = answerOf(err);
  if (!answer) return vendorUnreachable(`${VENDOR} (${what})`, err);
  const reason = jiraReason(answer.data);
  return vendorFailure(VENDOR, answer.status, headerGetter(answer.headers), `${what}: ${reason}`.replace(/: $/, ''));
}
