import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { FilterSchema } from '../tools/output-filters.js';
import type { Tool } from '../tools/types.js';

type JsonObjectSchema = Record<string, unknown> & { properties?: Record<string, unknown> };

const specCache = new WeakMap<Tool, ChatCompletionTool>();

let filters: Record<string, unknown> | undefined;
function filterProperties(): Record<string, unknown> {
  filters ??= (z.toJSONSchema(FilterSchema) as { properties: Record<string, unknown> }).properties;
  return filters;
}

/** A tool as the model sees it: its JSON Schema, plus the runtime's output filters. */
export function toOpenAiTool(tool: Tool): ChatCompletionTool {
  let spec = specCache.get(tool);
  if (!spec) {
    // A schema the tool declared itself (an MCP server's) is given as it is; else the zod one's.
    const schema = (tool.inputSchema ?? z.toJSONSchema(tool.params)) as JsonObjectSchema;
    const { $schema: _ignored, ...parameters } = schema;
    // Every tool also takes the runtime's output filters, unless it has parameters of those names.
    parameters.properties = { ...filterProperties(), ...(parameters.properties ?? {}) };
    spec = { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
    specCache.set(tool, spec);
  }
  return spec;
}
