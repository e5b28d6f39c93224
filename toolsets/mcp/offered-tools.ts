import type { McpServerConfig } from './config.js';
import type { Logger } from '../../src/log.js';
import { schemaProblem } from '../../src/tools/json-schema-args.js';
import type { Tool } from '../../src/tools/types.js';
import { isOffered, objectSchema, toLestradeTool, type CallMcpTool, type McpToolDef } from './mcp-tool.js';
import type { LinearOutputValidator } from './output-validator.js';
import { prefixedToolName } from './tool-name.js';

/**
 * A server's listed tools as Lestrade tools: the configuration's allow/deny applied, and each tool the
 * model could not use safely dropped with a warning naming it and why (the rest of the server stays):
 * a schema that does not compile or whose patterns RE2 cannot run, and two tools whose names map to
 * the same `<server>_<tool>` (neither is offered: the server must not choose which one a call reaches).
 */
export function offeredTools(
  server: McpServerConfig,
  defs: McpToolDef[],
  deps: { call: CallMcpTool; outputs: LinearOutputValidator; log: Logger },
): Tool[] {
  const drop = (tool: string, reason: string) =>
    deps.log.warn({ mcpServer: server.name, tool: tool.slice(0, 200), reason }, 'MCP tool not offered');
  const usable = defs.filter((d) => {
    if (!isOffered(server, d.name)) return false;
    const problem =
      schemaProblem(objectSchema(d.inputSchema)) ?? (d.outputSchema ? deps.outputs.problem(d.outputSchema) : null);
    if (problem) drop(d.name, problem);
    return !problem;
  });
  const byName = new Map<string, McpToolDef[]>();
  for (const d of usable) {
    const name = prefixedToolName(server.name, d.name);
    byName.set(name, [...(byName.get(name) ?? []), d]);
  }
  const tools: Tool[] = [];
  for (const [name, twins] of byName) {
    if (twins.length > 1) {
      twins.forEach((d) => drop(d.name, `${twins.length} of the server's tools would be named ${name}`));
      continue;
    }
    tools.push(toLestradeTool(server, twins[0]!, deps.call));
  }
  return tools;
}
