import { describe, expect, it } from 'vitest';
import { tracesUrl, startTracing } from '../../../../src/observability/otel-sdk.js';
import { startOtlpReceiver } from '../../../helpers/otlp-receiver.js';
import { deliverOne, runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, toolResults } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { startTestService } from '../../../helpers/service.js';

const h = serviceHarness();

describe('OpenTelemetry traces', () => {
  it('are off unless an OTLP endpoint is set, and follow the OTLP endpoint rules', async () => {
    expect(startTracing({}, 'test')).toBeNull();
    expect(
      startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_SDK_DISABLED: 'true' }, 'test'),
    ).toBeNull();
    expect(
      startTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_TRACES_EXPORTER: 'none' }, 'test'),
    ).toBeNull();
    expect(tracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(
      tracesUrl({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:4318/custom',
      }),
    ).toBe('http://b:4318/custom');
  });

  it('send one trace per investigation run: a chat span per LLM call, an execute_tool span per tool call, no content', async () => {
    const receiver = await startOtlpReceiver();
    h.llm = await startScriptedLlm((req) =>
      toolResults(req).length === 0
        ? {
            toolCalls: [{ name: 'say', arguments: { word: 'secret-evidence' }, id: 'call_say_1' }],
            usage: { prompt: 120, completion: 8 },
          }
        : { content: '## Root cause\nthe secret-evidence', usage: { prompt: 200, completion: 30 } },
    );
    const { config } = runtimeConfig();
    h.svc = await startTestService(h.redis.url, {
      OPENAI_API_KEY: 'sk-trace',
      OPENAI_BASE_URL: h.llm.baseUrl,
      LESTRADE_MODEL: 'scripted-model',
      LESTRADE_CONFIG: config,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_SERVICE_NAME: 'lestrade-test',
    });
    try {
      const id = await deliverOne(h.svc.base);
      await statusIs(h.svc.base, id, ['completed'], 30_000);
      // Closing flushes the batch.
      await h.svc.close();
      h.svc = undefined;

      const roots = receiver.spans.filter((s) => s.name === 'invoke_agent lestrade');
      expect(roots).toHaveLength(1);
      const root = roots[0]!;
      expect(root.parentSpanId).toBe('');
      expect(root.attributes).toMatchObject({
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'lestrade',
        'lestrade.investigation.id': id,
        'lestrade.source': 'alertmanager',
        'lestrade.phase': 'investigation',
        'lestrade.attempt': 1,
      });
      expect(root.resource).toMatchObject({ 'service.name': 'lestrade-test', 'service.version': expect.any(String) });
      const children = receiver.spans.filter((s) => s.parentSpanId === root.spanId);
      expect(children.map((s) => s.name)).toEqual(['chat scripted-model', 'execute_tool say', 'chat scripted-model']);
      expect(receiver.spans.every((s) => s.traceId === root.traceId)).toBe(true);
      expect(receiver.spans).toHaveLength(4);
      const [chat1, tool, chat2] = children;
      expect(chat1!.kind).toBe(3); // CLIENT
      expect(chat1!.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'scripted-model',
        'gen_ai.usage.input_tokens': 120,
        'gen_ai.usage.output_tokens': 8,
        'gen_ai.response.finish_reasons': ['tool_calls'],
        'server.address': '127.0.0.1',
      });
      expect(chat2!.attributes).toMatchObject({
        'gen_ai.usage.input_tokens': 200,
        'gen_ai.usage.output_tokens': 30,
        'gen_ai.response.finish_reasons': ['stop'],
      });
      expect(tool!.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'say',
        'gen_ai.tool.call.id': 'call_say_1',
        'lestrade.tool.status': 'success',
      });
      // No prompt, completion, tool argument or tool output reaches the spans.
      expect(JSON.stringify(receiver.spans)).not.toContain('secret-evidence');
      expect(receiver.contentTypes.every((t) => t.startsWith('application/json'))).toBe(true);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
