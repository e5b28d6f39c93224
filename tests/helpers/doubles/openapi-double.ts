import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { OpenAPIBackend, type Document, type Operation } from 'openapi-backend';
import { FaultQueue } from './faults.js';
import { FORMATS, formatError, parseQuery, readBody, type Query } from './double-io.js';

export type { Query };

export interface RecordedRequest {
  method: string;
  path: string;
  query: Query;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** The spec operation it matched, if any. */
  operationId?: string;
}

/** A request the spec (or a vendor rule the spec states in prose) refuses. */
export interface Violation {
  method: string;
  path: string;
  operationId?: string;
  errors: string[];
}

/** A response of the double's own that does not match the spec's response schema: a bug in the double. */
export interface ResponseViolation {
  operationId: string;
  status: number;
  errors: string[];
}

export interface HandlerInput {
  operationId: string;
  params: Record<string, string>;
  query: Query;
  body: unknown;
  headers: IncomingHttpHeaders;
  /** Whatever `authenticate` returned for this request (e.g. the caller's token). */
  principal: string;
  /** The full request URL as the client addressed the double. */
  url: URL;
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Set when the vendor refuses a request for a rule its spec states only in prose: it is recorded as a violation too. */
  violation?: string;
}

export type Handler = (input: HandlerInput) => HandlerResult | Promise<HandlerResult>;

/** A route no spec here covers, validated by its own function (errors, empty when valid). */
export interface ExtraRoute {
  method: string;
  path: string;
  operationId: string;
  validate: (input: { query: Query; body: unknown }) => string[];
}

export interface OpenApiDoubleOptions {
  spec: Document;
  /** Keyed by operationId, or by "METHOD /path/{template}" as written in the spec. */
  handlers: Record<string, Handler>;
  extraRoutes?: ExtraRoute[];
  /** The caller's identity from the request headers, or undefined to answer `unauthorized()`. */
  authenticate: (headers: IncomingHttpHeaders, operationId: string) => string | undefined;
  unauthorized: () => HandlerResult;
  /** The vendor's answer to a request its spec refuses, or to an unknown route. */
  refuse: (kind: 'invalid' | 'not-found', errors: string[]) => HandlerResult;
  /** Headers added to every answer (e.g. rate-limit headers). */
  commonHeaders?: () => Record<string, string>;
}

export interface OpenApiDouble {
  url: string;
  requests: RecordedRequest[];
  violations: Violation[];
  responseViolations: ResponseViolation[];
  faults: FaultQueue;
  backend: OpenAPIBackend;
  close(): Promise<void>;
}

/** An HTTP server that validates each request against an OpenAPI spec and answers from handlers. */
export async function startOpenApiDouble(opts: OpenApiDoubleOptions): Promise<OpenApiDouble> {
  const backend = new OpenAPIBackend({
    definition: opts.spec,
    quick: true,
    ajvOpts: { allErrors: true, strict: false },
    customizeAjv: (ajv) => {
      for (const [name, check] of Object.entries(FORMATS)) ajv.addFormat(name, check);
      return ajv;
    },
  });
  await backend.init();
  const faults = new FaultQueue();
  const requests: RecordedRequest[] = [];
  const violations: Violation[] = [];
  const responseViolations: ResponseViolation[] = [];
  let baseUrl = '';

  const handlerFor = (op: Operation | ExtraRoute): Handler | undefined =>
    opts.handlers[op.operationId ?? ''] ?? opts.handlers[`${op.method.toUpperCase()} ${op.path}`];

  const send = (res: ServerResponse, r: HandlerResult): void => {
    const headers = { ...opts.commonHeaders?.(), ...r.headers };
    if (r.body === undefined) {
      res.writeHead(r.status, headers).end();
      return;
    }
    res
      .writeHead(r.status, { 'content-type': 'application/json; charset=utf-8', ...headers })
      .end(JSON.stringify(r.body));
  };

  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', baseUrl);
    const method = (req.method ?? 'GET').toUpperCase();
    const query = parseQuery(url.searchParams);
    const { body, parseError } = await readBody(req);
    const record: RecordedRequest = { method, path: url.pathname, query, headers: req.headers, body };
    requests.push(record);
    const refuse = (kind: 'invalid' | 'not-found', errors: string[], operationId?: string): void => {
      violations.push({ method, path: url.pathname, operationId, errors });
      send(res, opts.refuse(kind, errors));
    };

    const plain = { method, path: url.pathname, headers: req.headers as Record<string, string>, query, body };
    const extra = opts.extraRoutes?.find((r) => r.method.toUpperCase() === method && r.path === url.pathname);
    const op = extra ? undefined : backend.matchOperation(plain);
    const operationId = extra?.operationId ?? op?.operationId;
    if (!operationId || !(extra || op))
      return refuse('not-found', [`no operation ${method} ${url.pathname} in the spec`]);
    record.operationId = operationId;

    const errors = parseError ? [parseError] : [];
    if (extra) errors.push(...extra.validate({ query, body }));
    else if (op && !parseError) errors.push(...(backend.validateRequest(plain, op).errors ?? []).map(formatError));
    const principal = opts.authenticate(req.headers, operationId);
    if (principal === undefined) {
      if (errors.length) violations.push({ method, path: url.pathname, operationId, errors });
      return send(res, opts.unauthorized());
    }
    if (errors.length) return refuse('invalid', errors, operationId);

    const handler = handlerFor((extra ?? op) as Operation | ExtraRoute);
    if (!handler) return refuse('not-found', [`the double has no handler for ${operationId}`], operationId);
    // Path parameters come back percent-decoded.
    const params = op ? (backend.router.parseRequest(plain, op).params as Record<string, string>) : {};

    let fault = faults.take(method, url.pathname);
    if (fault?.kind === 'delay') {
      await sleep(fault.ms);
      fault = undefined;
    }
    if (fault?.kind === 'status') {
      return send(res, {
        status: fault.status,
        headers: fault.headers,
        body: fault.body ?? { message: `injected ${fault.status}` },
      });
    }
    const result = await handler({ operationId, params, query, body, headers: req.headers, principal, url });
    if (result.violation) violations.push({ method, path: url.pathname, operationId, errors: [result.violation] });
    if (op && result.body !== undefined) {
      const check = backend.validateResponse(result.body, op, result.status);
      if (check.errors?.length)
        responseViolations.push({ operationId, status: result.status, errors: check.errors.map(formatError) });
    }
    if (fault?.kind === 'accept-then-drop') {
      res.socket?.destroy();
      return;
    }
    if (fault?.kind === 'accept-then-502') return send(res, { status: 502, body: { message: 'Bad Gateway' } });
    send(res, result);
  };

  const server = createServer((req, res) => {
    answer(req, res).catch((e: unknown) => {
      responseViolations.push({
        operationId: `${req.method} ${req.url}`,
        status: 500,
        errors: [`double crashed: ${String(e)}`],
      });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `double crashed: ${String(e)}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: baseUrl,
    requests,
    violations,
    responseViolations,
    faults,
    backend,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
