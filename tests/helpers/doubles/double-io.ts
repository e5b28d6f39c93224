import type { IncomingMessage } from 'node:http';
import type { ErrorObject } from 'ajv';

export type Query = Record<string, string | string[]>;

/** The string formats the specs use (ajv-formats is not a dependency of ours). */
export const FORMATS: Record<string, RegExp | ((s: string) => boolean)> = {
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i,
  date: /^\d{4}-\d{2}-\d{2}$/,
  uri: (s) => URL.canParse(s),
  // Not a JSON Schema format, but PagerDuty's Events API v2 spec writes its links' and images' URLs so.
  url: (s) => URL.canParse(s),
  email: /^[^@\s]+@[^@\s]+$/,
  timestamp: () => true,
};

export const formatError = (e: ErrorObject): string =>
  `${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`;

export function parseQuery(search: URLSearchParams): Query {
  const q: Query = {};
  for (const [k, v] of search) {
    const prev = q[k];
    if (prev === undefined) q[k] = v;
    else q[k] = Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return q;
}

export async function readBody(req: IncomingMessage): Promise<{ body: unknown; parseError?: string }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return { body: undefined };
  try {
    return { body: JSON.parse(text) as unknown };
  } catch (e) {
    return { body: text, parseError: `body is not JSON: ${(e as Error).message}` };
  }
}
