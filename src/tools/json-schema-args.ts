import type { ValidateFunction } from 'ajv';
import { linearAjv } from './linear-ajv.js';

// Patterns run on RE2 (linear time): a server's `^(a+)+$` cannot stall the event loop.
const ajv = linearAjv();
const compiled = new WeakMap<object, ValidateFunction | Error>();

/**
 * Checks a tool's arguments against a JSON Schema it declared; null when they hold, else which
 * field failed and why (at most five reasons). A schema ajv cannot compile (or whose patterns RE2
 * cannot run) refuses every call; `schemaProblem` says so before any call.
 */
export function checkJsonSchemaArgs(schema: Record<string, unknown>, args: unknown): string | null {
  const validate = compiledSchema(schema);
  if (validate instanceof Error) return validate.message;
  if (validate(args)) return null;
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
    .join('; ');
}

/** Why a tool's input schema cannot be used (it does not compile, or RE2 cannot run a pattern), else null. */
export function schemaProblem(schema: Record<string, unknown>): string | null {
  const validate = compiledSchema(schema);
  return validate instanceof Error ? validate.message : null;
}

function compiledSchema(schema: Record<string, unknown>): ValidateFunction | Error {
  let validate = compiled.get(schema);
  if (!validate) {
    try {
      validate = ajv.compile(schema);
    } catch (err) {
      validate = new Error(`the tool's input schema is not usable: ${(err as Error).message}`);
    }
    compiled.set(schema, validate);
  }
  return validate;
}
