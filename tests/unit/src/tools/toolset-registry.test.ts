import { describe, expect, it } from 'vitest';
import { resolveToolsets } from '../../../../src/tools/toolset-registry.js';
import { failing, tool, toolset } from '../../../helpers/toolset-fixtures.js';

describe('the resolved toolsets', () => {
  it("name a tool's toolset among the enabled ones, by the tools each has now", async () => {
    let mcpTools = [tool('list_things')];
    const r = await resolveToolsets(
      [
        toolset('prometheus'),
        toolset('mcp', { currentTools: () => mcpTools }),
        toolset('kubernetes', { prerequisites: [failing('no kubeconfig')] }),
      ],
      {},
      {},
    );
    expect(r.toolsetOf.get('prometheus_tool')).toBe('prometheus');
    expect(r.toolsetOf.get('list_things')).toBe('mcp');
    mcpTools = [tool('list_things'), tool('get_thing')];
    expect(r.toolsetOf.get('get_thing')).toBe('mcp');
    expect(r.toolsetOf.get('kubernetes_tool')).toBeUndefined();
    expect(r.toolsetOf.get('no_such_tool')).toBeUndefined();
  });

  it('close every toolset, enabled or not, even when one fails to close', async () => {
    const closed: string[] = [];
    const closing =
      (name: string, fail = false) =>
      () => {
        closed.push(name);
        return fail ? Promise.reject(new Error('already gone')) : Promise.resolve();
      };
    const r = await resolveToolsets(
      [
        toolset('a', { close: closing('a', true) }),
        toolset('b', { enabled: false, close: closing('b') }),
        toolset('c', { prerequisites: [failing('down')], close: closing('c') }),
        toolset('d'),
      ],
      {},
      {},
    );
    await expect(r.close()).resolves.toBeUndefined();
    expect(closed).toEqual(['a', 'b', 'c']);
  });

  it("report an enabled toolset's health now on its own status only, matched by name and origin", async () => {
    let trouble: string | null = null;
    const r = await resolveToolsets(
      [
        toolset('mcp', { origin: 'a.yaml', health: () => trouble }),
        toolset('mcp', { origin: 'b.yaml', tools: [tool('other')], prerequisites: [failing('down')] }),
        toolset('prometheus', { health: () => null }),
        toolset('logs', { prerequisites: [failing('no logs')] }),
      ],
      {},
      {},
    );
    const states = () => r.statusesNow().map((s) => [s.name, s.origin, s.state, s.reason, s.tools.join()]);
    expect(states()).toEqual([
      ['mcp', 'a.yaml', 'enabled', undefined, 'mcp_tool'],
      ['mcp', 'b.yaml', 'disabled', 'prerequisite not met: down', 'other'],
      ['prometheus', 'builtin', 'enabled', undefined, 'prometheus_tool'],
      ['logs', 'builtin', 'disabled', 'prerequisite not met: no logs', 'logs_tool'],
    ]);
    trouble = 'the server went away';
    expect(states()).toEqual([
      ['mcp', 'a.yaml', 'failed', 'the server went away', 'mcp_tool'],
      ['mcp', 'b.yaml', 'disabled', 'prerequisite not met: down', 'other'],
      ['prometheus', 'builtin', 'enabled', undefined, 'prometheus_tool'],
      ['logs', 'builtin', 'disabled', 'prerequisite not met: no logs', 'logs_tool'],
    ]);
  });
});
