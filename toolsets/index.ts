import { fileURLToPath } from 'node:url';
import type { Config } from '../src/config/schema.js';
import type { Toolset } from '../src/tools/types.js';
import type { Logger } from '../src/log.js';
import { createBashToolset } from './bash/index.js';
import { createMcpToolsets } from './mcp/index.js';
import { createPrometheusToolset } from './prometheus/index.js';

/** The folder of YAML toolsets shipped with Lestrade (kubernetes, ...). */
export const BUILTIN_YAML_DIR = fileURLToPath(new URL('.', import.meta.url));

/** Toolsets written in TypeScript, built from configuration, and one per MCP server (`mcp.servers`). */
export function builtinToolsets(config: Config, log: Logger): Toolset[] {
  return [
    createPrometheusToolset(config.toolsets.prometheus),
    createBashToolset(config.toolsets.bash),
    ...createMcpToolsets(config.mcp.servers, { log }),
  ];
}
