import { createServer, type IncomingMessage, type Server } from 'node:http';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { freePort } from './free-port.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { buildMcpServer, type McpCalls } from './mcp-tools.js';

export interface TestMcpHttp {
  url: string;
  seen: McpCalls;
  /** Stops listening and drops every open connection (the server "goes down"). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  /**
   * Registers one more read-only tool on every live SSE session's server, which then sends
   * `notifications/tools/list_changed` (the SDK does on a registration after connect).
   */
  addTool(name: string): void;
}

/**
 * A real MCP server (the SDK's) over HTTP on a free loopback port: streamable HTTP at /mcp (stateless:
 * a server per request), or the older HTTP+SSE at /sse with messages posted to /messages.
 */
export async function startMcpHttp(transport: 'streamable-http' | 'sse'): Promise<TestMcpHttp> {
  const port = await freePort();
  const seen: McpCalls = { calls: [], authorization: [] };
  const sse = new Map<string, SSEServerTransport>();
  const live = new Set<McpServer>();
  let server: Server | undefined;
  const header = (req: IncomingMessage) => {
    const auth = req.headers.authorization;
    if (auth) seen.authorization.push(auth);
    return auth;
  };
  const handler = async (req: IncomingMessage, res: import('node:http').ServerResponse) => {
    const auth = header(req);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (transport === 'streamable-http' && path === '/mcp') {
      const t = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await buildMcpServer(seen, () => auth).connect(t);
      await t.handleRequest(req, res);
      return;
    }
    if (transport === 'sse' && path === '/sse' && req.method === 'GET') {
      const t = new SSEServerTransport('/messages', res);
      sse.set(t.sessionId, t);
      const mcp = buildMcpServer(seen, () => auth);
      live.add(mcp);
      await mcp.connect(t);
      return;
    }
    if (transport === 'sse' && path === '/messages') {
      const t = sse.get(new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId') ?? '');
      if (t) return t.handlePostMessage(req, res);
    }
    res.writeHead(404).end();
  };
  const start = () =>
    new Promise<void>((resolve) => {
      server = createServer((req, res) => {
        handler(req, res).catch((err: Error) => res.writeHead(500).end(err.message));
      });
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      sse.clear();
      live.clear();
      server?.closeAllConnections();
      server?.close(() => resolve());
    });
  await start();
  const path = transport === 'sse' ? '/sse' : '/mcp';
  const addTool = (name: string) => {
    for (const mcp of live) {
      mcp.registerTool(name, { description: `Added later: ${name}` }, () => ({
        content: [{ type: 'text', text: `${name} ran` }],
      }));
    }
  };
  return { url: `http://127.0.0.1:${port}${path}`, seen, stop, start, addTool };
}
