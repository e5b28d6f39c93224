import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

type Env = Record<string, string | undefined>;

export interface Tracing {
  /** Where spans go (OTLP/HTTP, JSON), for the start-up log. */
  url: string;
  /** Sends what is buffered and unregisters the provider. */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT
 * is set (and neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none says otherwise): spans go
 * over OTLP/HTTP as JSON, batched. The SDK and exporter read the other standard variables themselves
 * (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_SAMPLER, OTEL_EXPORTER_OTLP_HEADERS,
 * OTEL_EXPORTER_OTLP_TIMEOUT, ...). Returns null when tracing stays off.
 */
export function startTracing(env: Env, version: string): Tracing | null {
  const url = tracesUrl(env);
  if (!url || /^true$/i.test(env.OTEL_SDK_DISABLED ?? '') || env.OTEL_TRACES_EXPORTER?.trim() === 'none') return null;
  const resource = resourceFromAttributes({
    'service.name': env.OTEL_SERVICE_NAME || 'lestrade',
    'service.version': version,
  }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  provider.register();
  return {
    url,
    async shutdown() {
      await provider.shutdown();
      // So a later start in the same process (tests) can register its own provider.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** The signal's own endpoint as given, else the general one with /v1/traces (the OTLP spec's rule). */
export function tracesUrl(env: Env): string | null {
  const own = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (own) return own;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : null;
}
