import type { jsonSchemaValidator, JsonSchemaType, JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { linearAjv } from '../../src/tools/linear-ajv.js';

/**
 * The SDK's check of a tool's `structuredContent` against its `outputSchema`, on RE2 (linear time):
 * the SDK's default ajv would run a server's `pattern` on the event loop. A schema that cannot be
 * compiled does not fail the server's whole tools/list (the SDK compiles at listing): every result of
 * that tool is refused with the reason, and `problem` lets the listing drop the tool first.
 */
export class LinearOutputValidator implements jsonSchemaValidator {
  private readonly ajv = linearAjv();

  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let validate: ReturnType<typeof this.ajv.compile>;
    try {
      validate = this.ajv.compile(schema as object);
    } catch (err) {
      const errorMessage = `the tool's output schema is not usable: ${(err as Error).message}`;
      return () => ({ valid: false, data: undefined, errorMessage });
    }
    return (input) =>
      validate(input)
        ? { valid: true, data: input as T, errorMessage: undefined }
        : { valid: false, data: undefined, errorMessage: this.ajv.errorsText(validate.errors) };
  }

  /** Why an output schema cannot be used, or null (ajv keeps what it compiled: the SDK's compile is reused). */
  problem(schema: Record<string, unknown>): string | null {
    try {
      this.ajv.compile(schema);
      return null;
    } catch (err) {
      return `the tool's output schema is not usable: ${(err as Error).message}`;
    }
  }
}
