import { describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { decodeCheckpoint } from '../../../../src/store/checkpoint.js';
import { deliverOne, runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, type Script } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { startTestService } from '../../../helpers/service.js';

const h = serviceHarness();

const TASKS = [
  { id: '1', content: 'Check the error rate', status: 'completed' },
  { id: '2', content: 'Read the checkout pod logs', status: 'pending' },
];

/** Writes a plan with one task open, answers, is sent back, and answers again with the task still open. */
const script: Script = (_req, call) => {
  if (call === 0) return { toolCalls: [{ id: 'p1', name: 'todo_write', arguments: { tasks: TASKS } }] };
  return { content: `answer ${call}` };
};

describe('the plan the model keeps (todo_write)', () => {
  it('is on the record (API) and in the checkpoint, and an answer with tasks open is sent back once', async () => {
    const rt = runtimeConfig();
    h.llm = await startScriptedLlm(script);
    h.svc = await startTestService(h.redis.url, {
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: h.llm.baseUrl,
      LESTRADE_CONFIG: rt.config,
    });
    const id = await deliverOne(h.svc.base);
    const done = await statusIs(h.svc.base, id, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    expect(done.plan).toEqual(TASKS);
    expect(h.llm.requests[0]!.tools!.map((t) => t.function.name)).toContain('todo_write');
    // The first answer came back with the open task named; the second stood (once only).
    expect(h.llm.requests).toHaveLength(3);
    const pushed = h.llm.requests[2]!.messages.at(-1)!;
    expect(pushed).toMatchObject({ role: 'user' });
    expect(String(pushed.content)).toMatch(/open tasks:\n- 2: Read the checkout pod logs \(pending\)/);
    expect(String(pushed.content)).not.toContain('Check the error rate');
    expect(done.rca).toContain('answer 2');
    const checkpoint = decodeCheckpoint((await h.admin.get(keys.checkpoint(id)))!);
    expect(checkpoint).toMatchObject({ plan: TASKS, planPushedBack: true });
  });
});
