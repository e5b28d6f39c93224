import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { z } from 'zod';
import { FilterSchema } from '../tools/output-filters.js';
import type { Tool } from '../tools/types.js';

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
    const { $schema: _ignored, ...parameters } = z.toJSONSchema(tool.params) as Record<string, unknown> & {
      properties?: Record<string, unknown>;
    };
    // Every tool also takes the runtime's output filters, unless it has parameters of those names.
    parameters.properties = { ...filterProperties(), ...(parameters.properties ?? {}) };
    spec = { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
    specCache.set(tool, spec);
  }
  return spec;
}
