import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LogQlError, matchesLabels, matchesLine, parseLogQuery, type LogQuery } from './loki-logql.js';

/**
 * A Grafana Loki double. Loki is not packaged for Debian (its `loki` package is an unrelated
 * program), so the toolset is tested against this server instead. It answers in Loki's documented
 * HTTP API format (https://grafana.com/docs/loki/latest/reference/loki-http-api/):
 *  - GET /loki/api/v1/query_range → {status:"success", data:{resultType:"streams", result:[{stream, values:[["<ns>", line]]}]}}
 *  - GET /loki/api/v1/labels and /loki/api/v1/label/<name>/values → {status:"success", data:[…]}
 * and refuses as Loki does, with its reason as plain text: 400 for a bad parameter (time, limit,
 * direction, LogQL), 401 "no org id" without X-Scope-OrgID when a tenant is required (auth_enabled).
 * Only log queries (selector and line filters) are understood; a metric query gets a 400.
 */
export interface LokiEntry {
  /** Nanoseconds since the epoch. */
  ns: bigint;
  line: string;
}

export interface LokiDoubleOptions {
  /** Tenants that exist; when set, X-Scope-OrgID is required and must be one of them. */
  tenants?: string[];
  /** When set, `Authorization` must be exactly this. */
  authorization?: string;
  /** Loki's max_entries_limit_per_query (5000 by default). */
  maxEntries?: number;
}

export interface SeenRequest {
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  status: number;
}

export interface LokiDouble {
  url: string;
  requests: SeenRequest[];
  /** Adds lines to a stream (of a tenant, or of the only store when no tenants are configured). */
  push(labels: Record<string, string>, entries: LokiEntry[], tenant?: string): void;
  stop(): Promise<void>;
}

interface Stream {
  tenant: string;
  labels: Record<string, string>;
  entries: LokiEntry[];
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startLokiDouble(opts: LokiDoubleOptions = {}): Promise<LokiDouble> {
  const streams: Stream[] = [];
  const requests: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://loki');
    const query = Object.fromEntries(url.searchParams);
    const answer = (status: number, body: unknown) => {
      requests.push({ path: url.pathname, query, headers: req.headers, status });
      send(res, status, body);
    };
    try {
      if (req.method !== 'GET') throw new Refusal(405, 'method not allowed');
      const tenant = checkAccess(req, opts);
      const data = route(
        url.pathname,
        query,
        streams.filter((s) => s.tenant === tenant),
        opts,
      );
      answer(200, { status: 'success', data });
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      answer(err.status, err.message);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    push(labels, entries, tenant = '') {
      let s = streams.find((x) => x.tenant === tenant && JSON.stringify(x.labels) === JSON.stringify(labels));
      if (!s) streams.push((s = { tenant, labels, entries: [] }));
      s.entries.push(...entries);
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const json = typeof body !== 'string';
  res.writeHead(status, { 'content-type': json ? 'application/json' : 'text/plain; charset=utf-8' });
  res.end(json ? JSON.stringify(body) : `${body}\n`);
}

/** Loki's tenant middleware answers 401 "no org id"; an auth proxy in front of it, 401 too. */
function checkAccess(req: IncomingMessage, opts: LokiDoubleOptions): string {
  if (opts.authorization !== undefined && req.headers.authorization !== opts.authorization)
    throw new Refusal(401, 'unauthorized');
  if (!opts.tenants) return '';
  const org = req.headers['x-scope-orgid'];
  if (typeof org !== 'string' || org === '') throw new Refusal(401, 'no org id');
  return opts.tenants.includes(org) ? org : `unknown:${org}`;
}

function route(path: string, q: Record<string, string>, streams: Stream[], opts: LokiDoubleOptions): unknown {
  if (path === '/loki/api/v1/query_range') return queryRange(q, streams, opts.maxEntries ?? 5000);
  const { start, end } = window(q);
  const selected = q.query ? selector(q.query) : undefined;
  const inWindow = streams.filter(
    (s) => (!selected || matchesLabels(selected, s.labels)) && s.entries.some((e) => e.ns >= start && e.ns <= end),
  );
  if (path === '/loki/api/v1/labels') return [...new Set(inWindow.flatMap((s) => Object.keys(s.labels)))].sort();
  const m = /^\/loki\/api\/v1\/label\/([^/]+)\/values$/.exec(path);
  if (m) {
    const name = decodeURIComponent(m[1]!);
    return [...new Set(inWindow.map((s) => s.labels[name]).filter((v): v is string => v !== undefined))].sort();
  }
  throw new Refusal(404, '404 page not found');
}

function queryRange(q: Record<string, string>, streams: Stream[], maxEntries: number): unknown {
  if (q.query === undefined) throw new Refusal(400, 'parse error : syntax error: unexpected $end');
  const parsed = selector(q.query);
  const limit = q.limit === undefined ? 100 : Number(q.limit);
  if (!Number.isInteger(limit) || limit <= 0) throw new Refusal(400, 'limit must be a positive value');
  if (limit > maxEntries)
    throw new Refusal(
      400,
      `max entries limit per query exceeded, limit > max_entries_limit (${limit} > ${maxEntries})`,
    );
  const direction = q.direction ?? 'backward';
  if (direction !== 'backward' && direction !== 'forward') throw new Refusal(400, `invalid direction '${direction}'`);
  const { start, end } = window(q);
  const sign = direction === 'backward' ? -1 : 1;
  const hits = streams
    .filter((s) => matchesLabels(parsed, s.labels))
    .flatMap((s) =>
      s.entries.filter((e) => e.ns >= start && e.ns < end && matchesLine(parsed, e.line)).map((e) => ({ s, e })),
    )
    .sort((a, b) => sign * Number(a.e.ns - b.e.ns))
    .slice(0, limit);
  const result = [...new Set(hits.map((h) => h.s))].map((s) => ({
    stream: s.labels,
    values: hits.filter((h) => h.s === s).map((h) => [h.e.ns.toString(), h.e.line]),
  }));
  return { resultType: 'streams', result, stats: {} };
}

function selector(query: string): LogQuery {
  if (/^\s*[a-z_]+\s*\(/.test(query)) throw new Refusal(400, 'the Loki double answers log queries only');
  try {
    return parseLogQuery(query);
  } catch (err) {
    if (err instanceof LogQlError) throw new Refusal(400, err.message);
    throw err;
  }
}

/** start and end as Loki reads them: nanoseconds since the epoch or RFC 3339; defaults an hour ago and now. */
function window(q: Record<string, string>): { start: bigint; end: bigint } {
  const now = BigInt(Date.now()) * 1_000_000n;
  const end = q.end === undefined ? now : timestamp(q.end);
  const start = q.start === undefined ? end - 3_600_000_000_000n : timestamp(q.start);
  if (end < start) throw new Refusal(400, 'end timestamp must not be before or equal to start time');
  return { start, end };
}

function timestamp(value: string): bigint {
  if (/^\d+$/.test(value)) return BigInt(value);
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(ms))
    throw new Refusal(400, `cannot parse "${value}" to a valid timestamp`);
  return BigInt(ms) * 1_000_000n;
}
