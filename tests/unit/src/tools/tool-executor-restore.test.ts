import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { restoreDeep } from '../../../../src/redaction/redaction.js';
import { callKey } from '../../../../src/tools/call-key.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import type { Tool } from '../../../../src/tools/types.js';

const state = { placeholders: { '<ip-1>': '10.2.3.4', '<email-1>': 'ops@corp.example' } };
const restore = (args: unknown) => restoreDeep(state, args);

function recorder(extra: Partial<Tool> = {}): { tool: Tool; seen: unknown[] } {
  const seen: unknown[] = [];
  const tool: Tool = {
    name: 'ping',
    description: 'pings',
    params: z.strictObject({ host: z.ipv4(), notify: z.array(z.string()).optional() }),
    run: async (p) => {
      seen.push(p);
      return { status: 'success', data: 'ok' };
    },
    ...extra,
  };
  return { tool, seen };
}

describe('ToolExecutor with restore (redaction)', () => {
  it('runs the call with the values its placeholders stand for, validated as values', async () => {
    const { tool, seen } = recorder();
    const executor = new ToolExecutor({ tools: [tool] });
    const args = JSON.stringify({ host: '<ip-1>', notify: ['<email-1>', '<email-9>'] });
    const result = await executor.execute({ id: 'c', name: 'ping', arguments: args }, { restore });
    expect(result.status).toBe('success');
    expect(seen).toEqual([{ host: '10.2.3.4', notify: ['ops@corp.example', '<email-9>'] }]);
    // Without restore the placeholder is what the tool would get, and it is no IPv4 address.
    const plain = await executor.execute({ id: 'c', name: 'ping', arguments: args });
    expect(plain).toMatchObject({ status: 'error', error: expect.stringContaining('invalid arguments') });
  });

  it('matches an approval by the call as the model wrote it (placeholders), and runs it with the values', async () => {
    const { tool, seen } = recorder({ sideEffects: true });
    const executor = new ToolExecutor({ tools: [tool] });
    const args = JSON.stringify({ host: '<ip-1>' });
    const approved = await executor.execute(
      { id: 'c', name: 'ping', arguments: args },
      { restore, approvedCallKey: callKey('ping', args) },
    );
    expect(approved.status).toBe('success');
    expect(seen).toEqual([{ host: '10.2.3.4' }]);
  });
});
