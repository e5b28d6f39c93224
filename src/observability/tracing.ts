import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

/**
 * Spans through the OpenTelemetry API only: without a registered SDK (otel-sdk.ts starts one when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set) every call here is a no-op. Names and attributes follow the
 * GenAI semantic conventions; no prompt, completion, tool argument or tool output is recorded.
 */
const TRACER = 'lestrade';

export const GEN_AI = {
  operation: 'gen_ai.operation.name',
  provider: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
  agentName: 'gen_ai.agent.name',
  errorType: 'error.type',
} as const;

/**
 * Runs `fn` in a new span (a child of the active one), ended when `fn` settles; a throw marks it
 * an error with `error.type` (the error's class, never its message: messages can carry secrets).
 */
export async function inSpan<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return trace.getTracer(TRACER).startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      failSpan(span, errorType(err));
      throw err;
    } finally {
      span.end();
    }
  });
}

/** Marks a span failed with a low-cardinality error type. */
export function failSpan(span: Span, type: string): void {
  span.setAttribute(GEN_AI.errorType, type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

function errorType(err: unknown): string {
  return err instanceof Error ? err.constructor.name : 'Error';
}

export { SpanKind };
