import { describe, expect, it } from 'vitest';
import { forModel, type ToolResult } from '../../../../src/records/tool-result.js';

describe('a tool result as the model sees it', () => {
  const result: ToolResult = { tool: 't', status: 'success', data: 'd', params: { a: 1 }, elapsedMs: 3 };
  it('leaves out who decided and whether it vouches for links, keeping the rest as it is', () => {
    expect(forModel(result)).toBe(JSON.stringify(result));
    expect(JSON.parse(forModel({ ...result, vouches: true }))).toEqual(result);
    expect(JSON.parse(forModel({ ...result, decidedBy: { via: 'slack', user: 'U1' } }))).toEqual(result);
    expect(JSON.parse(forModel({ ...result, vouches: true, decidedBy: { via: 'api', user: 'x' } }))).toEqual(result);
    expect(forModel(undefined)).toBeUndefined();
  });
});
