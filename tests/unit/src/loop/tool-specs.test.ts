import type { ChatCompletionFunctionTool, ChatCompletionTool } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toOpenAiTool } from '../../../../src/loop/tool-specs.js';
import type { Tool } from '../../../../src/tools/types.js';

// A tool as the model sees it (tool-specs.ts). The comments name the mutants each test kills.

/** The function part of a spec (toOpenAiTool makes only function tools). */
const fn = (spec: ChatCompletionTool) => (spec as ChatCompletionFunctionTool).function;
const tool = (params: z.ZodObject, name = 'q'): Tool => ({
  name,
  description: `the ${name} tool`,
  params,
  run: async () => ({ status: 'success', data: '' }),
});

describe('toOpenAiTool', () => {
  it("is the tool's JSON Schema without $schema, plus the output filters, named and described", () => {
    const spec = toOpenAiTool(tool(z.strictObject({ query: z.string(), limit: z.number().optional() })));
    expect(spec.type).toBe('function');
    const f = fn(spec);
    expect(f.name).toBe('q');
    expect(f.description).toBe('the q tool');
    const parameters = f.parameters as {
      $schema?: string;
      type: string;
      required: string[];
      properties: Record<string, { type?: string }>;
    };
    expect('$schema' in parameters).toBe(false);
    expect(parameters).toMatchObject({ type: 'object', required: ['query'], additionalProperties: false });
    expect(Object.keys(parameters.properties).sort()).toEqual([
      'limit',
      'output_fields',
      'output_grep',
      'output_head',
      'output_tail',
      'query',
    ]);
    expect(parameters.properties.query).toEqual({ type: 'string' });
    expect(parameters.properties.output_head).toMatchObject({ type: 'integer' });
  });

  it("lets a tool's own parameter of a filter's name win over the filter", () => {
    // `{ ...filterProperties(), ...own }` in the other order would give the filter's schema.
    const spec = toOpenAiTool(tool(z.object({ output_grep: z.boolean() }), 'own'));
    expect((fn(spec).parameters as { properties: Record<string, unknown> }).properties.output_grep).toEqual({
      type: 'boolean',
    });
  });

  it('gives a tool without parameters only the filters', () => {
    const spec = toOpenAiTool(tool(z.object({}), 'bare'));
    expect(Object.keys((fn(spec).parameters as { properties: object }).properties).sort()).toEqual([
      'output_fields',
      'output_grep',
      'output_head',
      'output_tail',
    ]);
  });

  it("builds a tool's spec once and hands the same object back, per tool", () => {
    const a = tool(z.object({ x: z.string() }), 'a');
    const b = tool(z.object({ x: z.string() }), 'b');
    // The cache: `if (!spec)` → `if (true)`, or the set removed, would build a new object each time.
    expect(toOpenAiTool(a)).toBe(toOpenAiTool(a));
    expect(toOpenAiTool(b)).not.toBe(toOpenAiTool(a));
    expect(fn(toOpenAiTool(b)).name).toBe('b');
  });
});
