import { z } from 'zod';
import { ParamSpecSchema } from './param-spec.js';

const ArgSchema = z.union([
  z.string(),
  /** Included only when the named parameter was given (and, for booleans, true). */
  z.strictObject({ when: z.string(), args: z.array(z.string()).min(1) }),
]);
export type CommandArg = z.infer<typeof ArgSchema>;

const BaseTool = z.strictObject({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'letters, digits, _ and - only, at most 64'),
  description: z.string().min(1),
  params: z.record(z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/), ParamSpecSchema).default({}),
  sideEffects: z.boolean().default(false),
  /** Output starting with any of these (after trimming) counts as "looked and found nothing". */
  noDataPatterns: z.array(z.string()).default([]),
});

export const CommandToolSchema = BaseTool.extend({
  command: z.array(ArgSchema).min(1),
  timeoutSeconds: z.number().positive().default(30),
});
export const HttpToolSchema = BaseTool.extend({
  http: z.strictObject({
    url: z.string().min(1),
    method: z.enum(['GET', 'POST']).default('GET'),
    headers: z.record(z.string(), z.string()).default({}),
    query: z.record(z.string(), z.string()).default({}),
    body: z.string().optional(),
  }),
  timeoutSeconds: z.number().positive().default(30),
});

const PrerequisiteSchema = z.union([
  z.strictObject({ env: z.array(z.string()).min(1) }),
  z.strictObject({ command: z.array(z.string()).min(1), timeoutSeconds: z.number().positive().default(10) }),
  z.strictObject({ http: z.string().min(1), headers: z.record(z.string(), z.string()).default({}), timeoutSeconds: z.number().positive().default(5) }),
]);

export const YamlToolsetSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_/-]*$/, 'lower-case letters, digits, _, / and -'),
  description: z.string().min(1),
  enabled: z.boolean().default(true),
  prerequisites: z.array(PrerequisiteSchema).default([]),
  tools: z.array(z.union([CommandToolSchema, HttpToolSchema])).min(1),
});
export type YamlToolset = z.infer<typeof YamlToolsetSchema>;
export type YamlTool = YamlToolset['tools'][number];
