import { createServer, type Server as HttpServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { freePort } from './free-port.js';

/** A tool as a hostile server lists it: any JSON Schema, as raw JSON (no zod in between). */
export interface RawToolDef {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
}

/** What the server answers to tools/call: a whole CallToolResult. */
export type RawCall = (name: string, args: Record<string, unknown>) => Record<string, unknown>;

export interface HostileMcp {
  url: string;
  stop(): Promise<void>;
}

/**
 * A real MCP server (the SDK's low-level Server, streamable HTTP, stateless) on a free loopback port that
 * lists whatever tools and schemas a test gives it and answers calls with whatever result: the server a
 * hostile third party would run (catastrophic patterns, unusable schemas, huge results).
 */
export async function startHostileMcp(tools: RawToolDef[], answer: RawCall): Promise<HostileMcp> {
  const port = await freePort();
  const build = () => {
    const server = new Server({ name: 'hostile', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, (req) => answer(req.params.name, req.params.arguments ?? {}));
    return server;
  };
  const http: HttpServer = createServer((req, res) => {
    const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    build()
      .connect(t)
      .then(() => t.handleRequest(req, res))
      .catch((err: Error) => res.writeHead(500).end(err.message));
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    stop: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
