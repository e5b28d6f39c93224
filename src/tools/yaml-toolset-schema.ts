import { z } from 'zod';
import { ParamSpecSchema } from './param-spec.js';

const ArgSchema = z.union([
  z.string(),
  z.number().transform(String),
  /** Included only when the named parameter was given (and, for booleans, true). */
  z.strictObject({ when: z.string(), args: z.array(z.union([z.string(), z.number().transform(String)])) }),
]);
export type CommandArg = z.output<typeof ArgSchema>;

/** A JSON body as YAML: string leaves are templates rendered per value ("{{ p }}" alone keeps p's type). */
const JsonBodySchema = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]);

const HttpSchema = z.strictObject({
  url: z.string().min(1),
  method: z.enum(['GET', 'POST']).default('GET'),
  headers: z.record(z.string(), z.string()).default({}),
  query: z.record(z.string(), z.string()).default({}),
  /**
   * A YAML mapping or list, sent as JSON built from typed values; or fixed text. Templated text is
   * refused: string-templating JSON (or any structured text) lets a value add fields.
   */
  body: z
    .union([
      z
        .string()
        .refine(
          (b) => !/\{\{|\{%/.test(b),
          'a templated body must be a YAML mapping or list (sent as JSON, built from typed values), not text',
        ),
      JsonBodySchema,
    ])
    .optional(),
});

/** One object, not a union, so a mistake is reported at its own key rather than as "invalid input". */
const ToolSchema = z
  .strictObject({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, _ and - only, at most 64'),
    description: z.string().min(1),
    params: z.record(z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/), ParamSpecSchema).default({}),
    sideEffects: z.boolean().default(false),
    /**
     * Its output is read from an outside system (kubectl, an HTTP API), so hosts it names may be linked in the
     * RCA; false for a tool whose output is made from its parameters (an echo, a template).
     */
    vouchesForLinks: z.boolean().default(true),
    /** Output starting with any of these (after trimming) counts as "looked and found nothing". */
    noDataPatterns: z.array(z.string()).default([]),
    /**
     * Parameters that narrow the output line by line after the tool ran: `filter` keeps lines matching (a
     * case-insensitive regex, else plain text), `exclude` drops them, `limit` keeps the last N (src/tools/line-filter.ts).
     */
    lines: z
      .strictObject({ filter: z.string().optional(), exclude: z.string().optional(), limit: z.string().optional() })
      .optional(),
    command: z.array(ArgSchema).min(1).optional(),
    http: HttpSchema.optional(),
    timeoutSeconds: z.number().positive().default(30),
  })
  .refine((t) => (t.command === undefined) !== (t.http === undefined), {
    message: 'a tool needs exactly one of command or http',
  })
  .refine((t) => Object.values(t.lines ?? {}).every((p) => Object.hasOwn(t.params, p)), {
    message: 'lines names a parameter this tool does not declare',
    path: ['lines'],
  });

const PrerequisiteSchema = z
  .strictObject({
    env: z.array(z.string()).min(1).optional(),
    command: z.array(z.string()).min(1).optional(),
    http: z.string().min(1).optional(),
    headers: z.record(z.string(), z.string()).default({}),
    timeoutSeconds: z.number().positive().optional(),
    /** A command's known failures, said in the user's words: `say` replaces output containing `match`. */
    explain: z.array(z.strictObject({ match: z.string().min(1), say: z.string().min(1) })).optional(),
  })
  .refine((p) => [p.env, p.command, p.http].filter((x) => x !== undefined).length === 1, {
    message: 'a prerequisite needs exactly one of env, command or http',
  })
  .refine((p) => p.explain === undefined || p.command !== undefined, {
    message: 'explain is for a command prerequisite',
  });

export const YamlToolsetSchema = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9_/-]*$/, 'lower-case letters, digits, _, / and -'),
    description: z.string().min(1),
    /** How the model should use the toolset: shown under its line in the system prompt. */
    instructions: z.string().trim().min(1).optional(),
    enabled: z.boolean().default(true),
    prerequisites: z.array(PrerequisiteSchema).default([]),
    tools: z.array(ToolSchema).min(1),
    /** Tools (by name) that need a human's approval for every call, side effects or not. */
    approvalRequired: z.array(z.string()).default([]),
  })
  .refine((t) => t.approvalRequired.every((name) => t.tools.some((tool) => tool.name === name)), {
    message: 'approvalRequired names a tool this toolset does not define',
    path: ['approvalRequired'],
  });
export type YamlToolset = z.infer<typeof YamlToolsetSchema>;
export type YamlTool = YamlToolset['tools'][number];
