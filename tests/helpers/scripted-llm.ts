import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the scripted model does on one call. */
export interface Reply {
  content?: string | null;
  toolCalls?: Array<{ name: string; arguments: unknown; id?: string }>;
  /** Answer with an HTTP error instead (e.g. 429, 500, 400). */
  status?: number;
  headers?: Record<string, string>;
  errorMessage?: string;
  usage?: { prompt: number; completion: number };
}

export interface ChatRequest {
  model: string;
  messages: Array<{
    role: string;
    content?: string | null;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
    tool_call_id?: string;
  }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters: unknown } }>;
  tool_choice?: unknown;
  [key: string]: unknown;
}

/** Where a request came in: its path (a client's base URL may carry a prefix, e.g. /p1/v1) and headers. */
export interface RequestMeta {
  url: string;
  headers: IncomingMessage['headers'];
}

export type Script = (req: ChatRequest, call: number, meta: RequestMeta) => Reply | Promise<Reply>;

export interface ScriptedLlm {
  /** Base URL for the openai SDK (…/v1). */
  baseUrl: string;
  requests: ChatRequest[];
  headers: IncomingMessage['headers'][];
  /** Requests whose client hung up before the answer (an aborted call). */
  aborted(): number;
  /** GET /v1/models requests answered (the readiness probe's). */
  modelListings(): number;
  close(): Promise<void>;
}

/**
 * A real HTTP server speaking the Chat Completions wire format, answering from a script
 * (a list of replies, one per call, or a function of the request). Tests drive the openai SDK at it.
 */
export async function startScriptedLlm(script: Reply[] | Script): Promise<ScriptedLlm> {
  const requests: ChatRequest[] = [];
  const headers: IncomingMessage['headers'][] = [];
  let aborted = 0;
  let models = 0;
  const next: Script = Array.isArray(script)
    ? (_req, i) => script[i] ?? { status: 500, errorMessage: `script has no reply for call ${i}` }
    : script;
  const server: Server = createServer(async (req, res) => {
    res.on('close', () => {
      if (!res.writableFinished) aborted += 1;
    });
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    if (req.method === 'GET' && /^(\/[\w-]+)*\/v1\/models$/.test(req.url ?? '')) {
      // What the openai SDK's models.list reads; /readyz probes it (src/llm/llm-probe.ts).
      models += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'lestrade-tests' }],
        }),
      );
      return;
    }
    // Any prefix before /v1 is accepted, so clients can be told apart by their base URL (see RequestMeta).
    if (req.method !== 'POST' || !/^(\/[\w-]+)*\/v1\/chat\/completions$/.test(req.url ?? '')) {
      res
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
    const index = requests.length;
    requests.push(body);
    headers.push(req.headers);
    const reply = await next(body, index, { url: req.url ?? '', headers: req.headers });
    if (res.destroyed) return;
    if (reply.status && reply.status >= 400) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(
        JSON.stringify({
          error: { message: reply.errorMessage ?? `scripted ${reply.status}`, type: 'scripted', code: null },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', ...reply.headers });
    res.end(JSON.stringify(completion(body.model, reply, index)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    headers,
    aborted: () => aborted,
    modelListings: () => models,
    close: () =>
      new Promise((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

function completion(model: string, reply: Reply, index: number) {
  const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${index}_${i}`,
    type: 'function',
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }));
  const usage = reply.usage ?? { prompt: 100, completion: 10 };
  return {
    id: `chatcmpl-${index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content ?? null,
          refusal: null,
          ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
    },
  };
}

/** The tool messages of a request, parsed, in order. */
export function toolResults(req: ChatRequest): Array<{ tool_call_id: string; result: Record<string, unknown> }> {
  return req.messages
    .filter((m) => m.role === 'tool')
    .map((m) => ({ tool_call_id: m.tool_call_id!, result: JSON.parse(m.content ?? '{}') }));
}
