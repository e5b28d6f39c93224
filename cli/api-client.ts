import { LestradeError } from '../src/errors.js';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

/** A failure talking to a running Lestrade, worded with its fix. */
export class ApiError extends LestradeError {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface ApiOptions {
  url: string;
  token?: string;
  /** Per request, in milliseconds. */
  timeoutMs?: number;
}

/** The base URL and token for the commands that talk to a running service: --url, then LESTRADE_URL, then the default. */
export function apiOptions(flagUrl: string | undefined, env: NodeJS.ProcessEnv): ApiOptions {
  const url = (flagUrl ?? env.LESTRADE_URL ?? DEFAULT_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/\s]+/.test(url)) {
    throw new ApiError(`--url / LESTRADE_URL "${url}" is not an http(s) URL; give one such as ${DEFAULT_URL}`);
  }
  const token = env.LESTRADE_API_TOKEN?.split(',')[0]?.trim();
  return { url, ...(token ? { token } : {}) };
}

/**
 * GET or POST a JSON API path (POST when there is a body; `method` says DELETE); the parsed body of a
 * 2xx answer (null for 204), else an ApiError naming the fix.
 */
export async function callApi<T>(
  opts: ApiOptions,
  path: string,
  body?: unknown,
  method?: 'DELETE',
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`${opts.url}${path}`, {
      method: method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      signal: AbortSignal.timeout(opts.timeoutMs ?? 15_000),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (err as Error).message;
    throw new ApiError(
      `Lestrade is not reachable at ${opts.url} (${why}): start it (\`lestrade serve\`) or set LESTRADE_URL / --url to where it runs`,
    );
  }
  const text = await res.text();
  const parsed = parseJson(text);
  if (res.ok) return { status: res.status, body: parsed as T };
  throw new ApiError(failureText(res.status, parsed, text, opts), res.status);
}

function failureText(status: number, parsed: unknown, text: string, opts: ApiOptions): string {
  if (status === 401) {
    return opts.token
      ? `${opts.url} refused the token in LESTRADE_API_TOKEN (401): set it to one of the service's LESTRADE_API_TOKEN values`
      : `${opts.url} requires an API token (401): set LESTRADE_API_TOKEN to one of the service's tokens`;
  }
  const error = (parsed as { error?: unknown } | null)?.error;
  const detail = typeof error === 'string' ? error : text.slice(0, 200) || 'no details';
  return `${detail} (HTTP ${status} from ${opts.url})`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
