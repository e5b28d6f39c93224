import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from './config.js';
import { cappedFetch } from './capped-fetch.js';

/**
 * The transport a server's configuration names: stdio for `command` (spawned without a shell, with
 * only the SDK's few inherited variables — PATH, HOME, USER... — and the configured `env`; stderr
 * piped to us), else streamable HTTP or, with `transport: sse`, the older HTTP+SSE. No message larger than
 * `maxResultBytes` is held whole (cappedFetch; the SDK's stdio line buffer).
 */
export function openTransport(server: McpServerConfig): Transport {
  if (server.command) {
    const [command, ...args] = server.command;
    return new StdioClientTransport({
      command: command!,
      args,
      env: server.env,
      stderr: 'pipe',
      // The SDK's line buffer stops at this size (the line is dropped; the call then times out).
      maxBufferSize: server.maxResultBytes,
      ...(server.cwd ? { cwd: server.cwd } : {}),
    });
  }
  const url = new URL(server.url!);
  const opts = { requestInit: { headers: server.headers }, fetch: cappedFetch(server.maxResultBytes) };
  return server.transport === 'sse' ? new SSEClientTransport(url, opts) : new StreamableHTTPClientTransport(url, opts);
}

/** Where the server is, for messages: the URL without its query (tokens hide there), or the command's name. */
export function serverWhere(server: McpServerConfig): string {
  if (server.command) return `command ${server.command[0]}`;
  const u = new URL(server.url!);
  return `${u.origin}${u.pathname}`;
}
