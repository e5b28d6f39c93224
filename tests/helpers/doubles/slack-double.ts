import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FaultQueue } from './faults.js';
import { loadSlackSpec } from './slack-spec.js';
import { SlackState, type SlackMessageRecord } from './slack-state.js';
import { slackHandlers } from './slack-handlers.js';

export { BOT } from './slack-state.js';

export interface SlackRequest {
  method: string;
  httpMethod: string;
  contentType: string;
  args: Record<string, unknown>;
  /** The token it came with (Bearer header or `token` argument). */
  token: string | null;
}

export interface SlackViolation {
  method: string;
  errors: string[];
}

export interface SlackDouble {
  /** What SLACK_API_URL is set to. */
  apiUrl: string;
  state: SlackState;
  requests: SlackRequest[];
  /** Requests the spec (or Slack's documented rules) refuse. */
  violations: SlackViolation[];
  /** Answers of the double that do not match the spec: a bug in the double. */
  responseViolations: SlackViolation[];
  faults: FaultQueue;
  /** The token the workspace accepts; change it to revoke ours. */
  token: string;
  calls(method: string): SlackRequest[];
  close(): Promise<void>;
}

export type SlackAnswer = { status?: number; headers?: Record<string, string>; body: Record<string, unknown> };
export type SlackHandler = (args: Record<string, unknown>, state: SlackState) => SlackAnswer;

/**
 * A Slack Web API double on loopback: every request is validated against the Web API spec subset
 * (form, JSON or query arguments, token as Bearer or argument); it answers as Slack does (HTTP 200
 * with ok:false and an error code; 429 with Retry-After), keeps channels, messages, threads and
 * metadata, and takes faults (accept-then-drop, 502, 429) on any method's path (/api/<method>).
 */
export async function startSlackDouble(opts: { token: string }): Promise<SlackDouble> {
  const spec = loadSlackSpec();
  const state = new SlackState();
  const handlers = slackHandlers();
  const faults = new FaultQueue();
  const requests: SlackRequest[] = [];
  const violations: SlackViolation[] = [];
  const responseViolations: SlackViolation[] = [];
  const double = {} as SlackDouble;

  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://double');
    const method = url.pathname.replace(/^\/api\//, '');
    const { args, token, error } = await readArgs(req, url);
    const record: SlackRequest = {
      method,
      httpMethod: req.method ?? 'GET',
      contentType: req.headers['content-type'] ?? '',
      args,
      token,
    };
    requests.push(record);
    const send = (a: SlackAnswer) =>
      res
        .writeHead(a.status ?? 200, { 'content-type': 'application/json; charset=utf-8', ...a.headers })
        .end(JSON.stringify(a.body));
    if (!spec.methods.includes(method) || !handlers[method]) {
      violations.push({ method, errors: [`no method ${method} in the spec subset`] });
      return void send({ body: { ok: false, error: 'unknown_method' } });
    }
    if (!token) return void send({ body: { ok: false, error: 'not_authed' } });
    if (token !== double.token) return void send({ body: { ok: false, error: 'invalid_auth' } });
    const errors = error ? [error] : spec.validateArgs(method, args);
    if (errors.length) {
      violations.push({ method, errors });
      return void send({ body: { ok: false, error: 'invalid_arguments', response_metadata: { messages: errors } } });
    }
    const fault = faults.take(req.method ?? 'POST', url.pathname);
    if (fault?.kind === 'status')
      return void send({
        status: fault.status,
        headers: fault.headers,
        body: (fault.body ?? { ok: false, error: 'injected' }) as Record<string, unknown>,
      });
    const result = handlers[method](args, state);
    if (result.body.ok === true) {
      const bad = spec.validateAnswer(method, result.body);
      if (bad.length) responseViolations.push({ method, errors: bad });
    }
    if (fault?.kind === 'accept-then-drop') return void res.socket?.destroy();
    if (fault?.kind === 'accept-then-502') return void send({ status: 502, body: { ok: false, error: 'bad_gateway' } });
    send(result);
  };

  const server = createServer((req, res) => {
    answer(req, res).catch((e: unknown) => {
      responseViolations.push({ method: req.url ?? '', errors: [`double crashed: ${String(e)}`] });
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  Object.assign(double, {
    apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`,
    state,
    requests,
    violations,
    responseViolations,
    faults,
    token: opts.token,
    calls: (method: string) => requests.filter((r) => r.method === method),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
  return double;
}

/** Query, form or JSON arguments as one set; blocks and metadata sent as JSON strings are parsed. */
async function readArgs(
  req: IncomingMessage,
  url: URL,
): Promise<{ args: Record<string, unknown>; token: string | null; error?: string }> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const args: Record<string, unknown> = Object.fromEntries(url.searchParams);
  const type = req.headers['content-type'] ?? '';
  let error: string | undefined;
  if (text && type.startsWith('application/json')) {
    try {
      Object.assign(args, JSON.parse(text));
    } catch (e) {
      error = `body is not JSON: ${(e as Error).message}`;
    }
  } else if (text && type.startsWith('application/x-www-form-urlencoded')) {
    Object.assign(args, Object.fromEntries(new URLSearchParams(text)));
  } else if (text) {
    error = `unsupported content type ${type}`;
  }
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? null;
  const token = bearer ?? (typeof args.token === 'string' ? args.token : null);
  delete args.token;
  return { args, token, ...(error ? { error } : {}) };
}

export type { SlackMessageRecord };
