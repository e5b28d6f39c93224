import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { McpServerConfig } from './config.js';
import type { Tool, ToolContext, ToolOutput } from '../../src/tools/types.js';
import { matchesAny } from './glob.js';
import { prefixedToolName } from './tool-name.js';

/** A tool as an MCP server lists it (tools/list). */
export interface McpToolDef {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
}

export type CallMcpTool = (name: string, args: Record<string, unknown>, ctx: ToolContext) => Promise<ToolOutput>;

const MAX_DESCRIPTION = 2_000;

/** Whether the configuration lets the model see this tool: on `tools.allow`, not on `tools.deny`. */
export function isOffered(server: McpServerConfig, tool: string): boolean {
  return matchesAny(tool, server.tools.allow) && !matchesAny(tool, server.tools.deny);
}

/**
 * A server's tool as a Lestrade tool: named `<server>_<tool>`, its JSON Schema given to the model and
 * checked by the executor, and side-effecting (approval first) unless the configuration's `readOnly`
 * names it. The server's `readOnlyHint` is shown to the model and the approver, never trusted alone.
 */
export function toLestradeTool(server: McpServerConfig, def: McpToolDef, call: CallMcpTool): Tool {
  const readOnly = matchesAny(def.name, server.readOnly);
  const hint = annotationNote(def.annotations);
  const text = (def.description ?? def.annotations?.title ?? def.name).slice(0, MAX_DESCRIPTION);
  return {
    name: prefixedToolName(server.name, def.name),
    description: `[MCP server ${server.name}] ${fenced(`tool ${def.name.slice(0, 200)}: ${text}`)}${hint}`,
    params: z.looseObject({}),
    inputSchema: objectSchema(def.inputSchema),
    // The server is a system outside Lestrade: its results vouch for links (not hosts the call's arguments name).
    vouchesForLinks: true,
    ...(readOnly ? {} : { sideEffects: true }),
    async run(params, ctx) {
      // The executor asked a human first; checked again here, as every side-effecting runner does.
      if (!readOnly && !ctx.approved) return { status: 'error', error: `${def.name} needs a human's approval` };
      return call(def.name, params, ctx);
    },
  };
}

/**
 * The server's words (its tool's name and description) inside a fence with a random tag, as ticket text is
 * in the prompt: the system prompt says the fence holds third-party data. The server cannot close the fence,
 * since it cannot know the tag (and the text loses any `untrusted-` of its own).
 */
function fenced(text: string): string {
  const tag = `untrusted-${randomBytes(6).toString('hex')}`;
  const clean = text.replace(/untrusted-/gi, 'untrusted-(removed)');
  return `<${tag}>${clean}</${tag}>`;
}

/** What the server's annotations say, for the model and the approver (shown, not trusted). */
function annotationNote(annotations: McpToolDef['annotations']): string {
  if (annotations?.readOnlyHint) return ' The server says this tool is read-only (readOnlyHint).';
  if (annotations?.destructiveHint) return ' The server says this tool may be destructive (destructiveHint).';
  return '';
}

/** Servers send `{type: "object"}` with or without properties; the model needs an object schema. */
export function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return { ...rest, type: 'object', properties: rest.properties ?? {} };
}
