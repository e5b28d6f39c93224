import type { Logger } from '../../src/log.js';
import type { ToolsetRegistration } from '../../src/registration/toolset.js';
import type { Toolset } from '../../src/tools/types.js';
import { McpConfigSchema, type McpConfig } from './config.js';
import { expandMcpEnvRefs } from './expand-env-refs.js';
import { createMcpToolsets } from './index.js';

/**
 * The MCP registration: its settings are the top-level `mcp` (`mcp.servers[]`, docs/mcp.md), `${VAR}`
 * in headers and env filled from the environment before validation; one toolset per server.
 */
export const mcpToolsets: ToolsetRegistration<McpConfig, Toolset, { log: Logger }> = {
  name: 'mcp',
  configKey: 'mcp',
  configSchema: McpConfigSchema,
  prepare: expandMcpEnvRefs,
  create: ({ servers }, { log }) => createMcpToolsets(servers, { log }),
};
