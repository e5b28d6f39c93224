import type { McpServerConfig } from './config.js';
import type { Toolset } from '../../src/tools/types.js';
import { McpConnection, type ConnectionOptions } from './mcp-connection.js';
import { serverWhere } from './open-transport.js';

/**
 * One toolset per configured MCP server (`mcp.servers`), named as the server. Its prerequisite is the
 * first connection: a server down at start-up makes the toolset "failed" with the reason. `close`
 * ends the connection (and a stdio server's process).
 */
export function createMcpToolsets(servers: readonly McpServerConfig[], opts: ConnectionOptions): Toolset[] {
  return servers.map((server) => {
    const connection = new McpConnection(server, opts);
    return {
      name: server.name,
      description: `Tools of the MCP server ${server.name} (${serverWhere(server)})`,
      // The operators' words only: a server's own `instructions` (sent at initialize) are never used.
      ...(server.instructions ? { instructions: server.instructions } : {}),
      origin: 'mcp',
      enabled: true,
      prerequisites: [{ kind: 'check', failed: true, run: () => connection.start() }],
      get tools() {
        return connection.tools;
      },
      currentTools: () => connection.tools,
      health: () => connection.health(),
      close: () => connection.close(),
    };
  });
}
