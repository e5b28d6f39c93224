import { z } from 'zod';

/** A typed parameter as YAML toolsets declare it. */
export const ParamSpecSchema = z.strictObject({
  type: z.enum(['string', 'integer', 'number', 'boolean']),
  description: z.string().default(''),
  required: z.boolean().default(true),
  enum: z.array(z.union([z.string(), z.number()])).optional(),
  pattern: z.string().optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  /** Command tools refuse string values starting with "-" (flag injection) unless this is set. */
  allowLeadingDash: z.boolean().default(false),
});
export type ParamSpec = z.infer<typeof ParamSpecSchema>;

/** Turns declared parameters into the zod object that validates calls and describes them to the model. */
export function paramsToZod(specs: Record<string, ParamSpec>, forCommand: boolean): z.ZodObject {
  // Object.fromEntries defines each name as an own key, even "__proto__" or "constructor".
  const shape: Record<string, z.ZodType> = Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => {
      let t = baseType(spec, forCommand);
      if (spec.description) t = t.describe(spec.description);
      return [name, spec.required ? t : t.optional()];
    }),
  );
  return z.strictObject(shape);
}

function baseType(spec: ParamSpec, forCommand: boolean): z.ZodType {
  if (spec.enum) {
    const values = spec.enum.map(String);
    return spec.type === 'string'
      ? z.enum(values as [string, ...string[]])
      : z.union(spec.enum.map((v) => z.literal(v)) as never);
  }
  switch (spec.type) {
    case 'boolean':
      return z.boolean();
    case 'integer':
    case 'number': {
      let n = spec.type === 'integer' ? z.int() : z.number();
      if (spec.minimum !== undefined) n = n.min(spec.minimum);
      if (spec.maximum !== undefined) n = n.max(spec.maximum);
      return n;
    }
    case 'string': {
      let s = z.string().max(4096);
      if (spec.pattern) s = s.regex(new RegExp(spec.pattern), `must match ${spec.pattern}`);
      if (forCommand && !spec.allowLeadingDash) s = s.refine((v) => !v.startsWith('-'), 'must not start with "-"');
      return s;
    }
  }
}
