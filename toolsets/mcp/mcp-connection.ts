import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig } from './config.js';
import type { Logger } from '../../src/log.js';
import type { Tool, ToolContext, ToolOutput } from '../../src/tools/types.js';
import { toToolOutput } from './call-result.js';
import { ClippedStderr } from './clipped-stderr.js';
import type { McpToolDef } from './mcp-tool.js';
import { offeredTools } from './offered-tools.js';
import { LinearOutputValidator } from './output-validator.js';
import { openTransport, serverWhere } from './open-transport.js';

export interface ConnectionOptions {
  log: Logger;
  /** First wait before reconnecting (doubled each failure, up to maxBackoffMs). */
  backoffMs?: number;
  maxBackoffMs?: number;
  clientVersion?: string;
}

type State = 'new' | 'connected' | 'down' | 'closed';

/**
 * One MCP server: connected at start-up, its tools listed then and on `notifications/tools/list_changed`,
 * and, after a drop (HTTP failures, a stdio server that exited), reconnected — a stdio server respawned —
 * with backoff. While down, calls answer an error the model can read.
 */
export class McpConnection {
  private client: Client | null = null;
  private state: State = 'new';
  private reason = '';
  private list: Tool[] = [];
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly stderr: ClippedStderr;
  private readonly where: string;
  private readonly outputs = new WeakMap<Client, LinearOutputValidator>();

  constructor(
    private readonly server: McpServerConfig,
    private readonly opts: ConnectionOptions,
  ) {
    this.stderr = new ClippedStderr(server.name, opts.log);
    this.where = serverWhere(server);
  }

  /** The tools now (a new array each time the list changes). */
  get tools(): Tool[] {
    return this.list;
  }

  /** Null while connected; else why not (for the toolset's status). */
  health(): string | null {
    if (this.state === 'connected') return null;
    return `MCP server ${this.server.name} (${this.where}) is ${this.state === 'closed' ? 'closed' : `down: ${this.reason}`}`;
  }

  /** The first connection: null when it worked, else the reason (the toolset is then "failed"). */
  async start(): Promise<string | null> {
    try {
      await this.connect();
      return null;
    } catch (err) {
      this.state = 'down';
      this.reason = this.describe(err);
      return `cannot reach MCP server ${this.server.name} at ${this.where}: ${this.reason}`;
    }
  }

  async close(): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    await client?.close();
  }

  async call(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
    const client = this.client;
    if (this.state !== 'connected' || !client)
      return { status: 'error', error: `${this.health() ?? 'not connected'}; reconnecting, try again later` };
    try {
      const result = await client.callTool({ name, arguments: args }, undefined, {
        signal: ctx.signal,
        timeout: this.server.timeoutSeconds * 1000,
      });
      return toToolOutput(result);
    } catch (err) {
      // A protocol error is the server's answer; anything else means the connection is gone.
      if (!(err instanceof McpError) && !ctx.signal.aborted) this.dropped(client, this.describe(err));
      return { status: 'error', error: `MCP server ${this.server.name}: ${this.describe(err)}` };
    }
  }

  private async connect(): Promise<void> {
    const transport = openTransport(this.server);
    if (this.server.command) this.stderr.attach((transport as StdioClientTransport).stderr as never);
    // The SDK checks results against a tool's outputSchema: on RE2, never on the event loop's own engine.
    const outputs = new LinearOutputValidator();
    const client = new Client(
      { name: 'lestrade', version: this.opts.clientVersion ?? '0' },
      { capabilities: {}, jsonSchemaValidator: outputs },
    );
    this.outputs.set(client, outputs);
    client.onclose = () => this.dropped(client, this.server.command ? this.exited() : 'the connection closed');
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.refreshLater(client));
    await client.connect(transport, { timeout: this.server.timeoutSeconds * 1000 });
    try {
      this.list = await this.listTools(client);
    } catch (err) {
      await client.close();
      throw err;
    }
    this.client = client;
    this.state = 'connected';
    this.failures = 0;
  }

  /** Every page of tools/list, the configuration's allow/deny applied. */
  private async listTools(client: Client): Promise<Tool[]> {
    const defs: McpToolDef[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { timeout: this.server.timeoutSeconds * 1000 });
      defs.push(...(page.tools as McpToolDef[]));
      cursor = page.nextCursor;
    } while (cursor && defs.length < 10_000);
    const call = (name: string, args: Record<string, unknown>, ctx: ToolContext) => this.call(name, args, ctx);
    return offeredTools(this.server, defs, { call, outputs: this.outputs.get(client)!, log: this.opts.log });
  }

  private refreshLater(client: Client): void {
    this.listTools(client).then(
      (tools) => {
        if (this.client !== client) return;
        this.list = tools;
        this.opts.log.info({ mcpServer: this.server.name, tools: tools.length }, 'MCP server tool list changed');
      },
      (err: Error) => this.opts.log.warn({ mcpServer: this.server.name, err: err.message }, 'MCP tools/list failed'),
    );
  }

  /** The connection this client held is gone: reconnect with backoff (once per client). */
  private dropped(client: Client, reason: string): void {
    if (this.state === 'closed' || this.client !== client) return;
    this.client = null;
    this.state = 'down';
    this.reason = reason;
    this.opts.log.warn({ mcpServer: this.server.name, reason }, 'MCP server dropped; reconnecting');
    client.onclose = undefined;
    // Closing a dead transport may itself fail; the client is dropped either way.
    client.close().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const base = this.opts.backoffMs ?? 1_000;
    const wait = Math.min(base * 2 ** this.failures, this.opts.maxBackoffMs ?? 60_000);
    this.timer = setTimeout(() => {
      if (this.state === 'closed') return;
      this.connect().then(
        () => this.opts.log.info({ mcpServer: this.server.name }, 'MCP server reconnected'),
        (err: unknown) => {
          this.failures += 1;
          this.reason = this.describe(err);
          this.scheduleReconnect();
        },
      );
    }, wait);
    this.timer.unref();
  }

  private exited(): string {
    const tail = this.stderr.last();
    return `the server process exited${tail ? `; its stderr ended with: ${tail.slice(-300)}` : ''}`;
  }

  private describe(err: unknown): string {
    const e = err as { message?: string; cause?: { code?: string; message?: string } };
    const cause = e.cause?.code ?? e.cause?.message;
    return `${e.message ?? String(err)}${cause ? ` (${cause})` : ''}`.slice(0, 500);
  }
}
