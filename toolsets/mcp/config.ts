import { z } from 'zod';

/** Globs over a server's own tool names (`*` any run of characters, `?` one). */
const Glob = z.string().min(1);

/**
 * One MCP server as the config file names it (`mcp.servers[]`): reached by URL (streamable HTTP,
 * or SSE with `transport: sse`) or spawned as a command (stdio). Header and env values may say
 * `${VAR}`: the config loader fills them from the environment (expand-env-refs.ts, this toolset's `prepare`), so the redactor knows the values.
 */
export const McpServerSchema = z
  .strictObject({
    /** The toolset's name and the prefix of its tools' names. */
    name: z.string().regex(/^[a-z][a-z0-9-]{0,30}$/, 'lowercase letters, digits and dashes, starting with a letter'),
    url: z.url().optional(),
    transport: z.enum(['streamable-http', 'sse']).default('streamable-http'),
    headers: z.record(z.string(), z.string()).default({}),
    /** argv of a stdio server: spawned without a shell. */
    command: z.array(z.string().min(1)).min(1).optional(),
    /** The stdio server's environment besides PATH, HOME and a few such (nothing else of ours is passed). */
    env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).default({}),
    cwd: z.string().optional(),
    tools: z.strictObject({ allow: z.array(Glob).default(['*']), deny: z.array(Glob).default([]) }).prefault({}),
    /** The server's tools that run without approval; every other one needs a human's. */
    readOnly: z.array(Glob).default([]),
    timeoutSeconds: z.number().positive().max(3600).default(30),
    /**
     * The largest answer read from the server (one JSON-RPC message): past it the rest is not read and the call
     * is an error naming this setting, so a hostile or broken server cannot make Lestrade hold 40 MB.
     */
    maxResultBytes: z
      .number()
      .int()
      .min(64 * 1024)
      .max(256 * 1024 * 1024)
      .default(4 * 1024 * 1024),
    /**
     * How the model should use this server's tools, shown in the system prompt. Only from here: the
     * instructions a server sends when it connects are third-party text and never reach the prompt.
     */
    instructions: z.string().trim().min(1).optional(),
  })
  .refine((s) => (s.url === undefined) !== (s.command === undefined), {
    message: 'give either url (an HTTP server) or command (a stdio server), not both or neither',
  });

export type McpServerConfig = z.infer<typeof McpServerSchema>;

/** `mcp`: the MCP servers, each a toolset (toolsets/mcp; docs/mcp.md). */
export const McpConfigSchema = z.strictObject({
  servers: z
    .array(McpServerSchema)
    .default([])
    .refine((list) => new Set(list.map((s) => s.name)).size === list.length, 'server names must be unique'),
});
export type McpConfig = z.infer<typeof McpConfigSchema>;
