import { Ajv, type ValidateFunction } from 'ajv';

// strict: false — schemas written by others carry keywords ajv does not know (title, examples, x-*).
// validateFormats: false — a format we cannot check is not a reason to refuse a call.
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const compiled = new WeakMap<object, ValidateFunction | Error>();

/**
 * Checks a tool's arguments against a JSON Schema it declared; null when they hold, else which
 * field failed and why (at most five reasons). A schema ajv cannot compile refuses every call.
 */
export function checkJsonSchemaArgs(schema: Record<string, unknown>, args: unknown): string | null {
  let validate = compiled.get(schema);
  if (!validate) {
    try {
      validate = ajv.compile(schema);
    } catch (err) {
      validate = new Error(`the tool's input schema is not usable: ${(err as Error).message}`);
    }
    compiled.set(schema, validate);
  }
  if (validate instanceof Error) return validate.message;
  if (validate(args)) return null;
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
    .join('; ');
}
