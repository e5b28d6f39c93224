import { z } from 'zod';

/** An instance's name: what the model passes as `instance` and an issue's label names. */
export const InstanceNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/,
    'letters, digits, _, . and - (at most 63, starting with a letter or digit)',
  );

/**
 * The keys a toolset of several instances adds to its settings: `instances` (each with a `name`, a `description`
 * for the model, and the toolset's own per-instance keys), `instanceLabel` (the issue label naming the instance,
 * `cluster`) and `crossInstance` (calls may leave the issue's own instance). Names must differ.
 */
export function instanceKeys<S extends z.ZodRawShape>(perInstance: S) {
  const instance = z.strictObject({
    name: InstanceNameSchema,
    description: z.string().trim().min(1).max(500).optional(),
    ...perInstance,
  });
  return {
    instances: z
      .array(instance)
      .min(1)
      .refine(
        (list) => new Set(list.map((i) => (i as { name: string }).name)).size === list.length,
        'instance names must differ',
      )
      .optional(),
    /** Default `cluster` (applied where the instances are built, so settings without instances stay as they were). */
    instanceLabel: z.string().min(1).optional(),
    /** Default false. */
    crossInstance: z.boolean().optional(),
  };
}

/** Settings with instances: the `default` instance of the single-URL form (when set) must not be named twice. */
export function defaultNamedOnce(settings: { url?: string; instances?: Array<{ name: string }> }): boolean {
  return !(settings.url !== undefined && settings.instances?.some((i) => i.name === 'default'));
}

/** The message of that check, naming the keys. */
export const DEFAULT_NAMED_TWICE =
  'url is the instance named default: remove it, or rename the instance named default in instances';
