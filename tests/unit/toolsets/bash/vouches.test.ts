import { describe, expect, it } from 'vitest';
import { vouchedHosts } from '../../../../src/render/vouched-hosts.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { createBashToolset } from '../../../../toolsets/bash/index.js';
import { pipelineVouches } from '../../../../toolsets/bash/vouches.js';

describe('a bash pipeline vouching for the links in its output', () => {
  it('does when it starts with a program that reads an outside system and only filters after it', () => {
    expect(pipelineVouches([['kubectl', 'get', 'events']])).toBe(true);
    expect(pipelineVouches([['/usr/bin/curl', '-s', 'https://status.internal']])).toBe(true);
    expect(pipelineVouches([['kubectl', 'logs', 'api'], ['grep', 'http'], ['sort'], ['uniq', '-c'], ['head']])).toBe(
      true,
    );
  });

  it('does not when the model wrote the text (echo, printf, jq -n) or a later stage can build text (jq, awk, tr, sed)', () => {
    expect(pipelineVouches([['jq', '-n', '"see https://evil.example/phish"']])).toBe(false);
    expect(pipelineVouches([['printf', 'https://evil.example']])).toBe(false);
    expect(
      pipelineVouches([
        ['grep', 'x'],
        ['kubectl', 'get', 'pods'],
      ]),
    ).toBe(false);
    for (const builder of ['jq', 'awk', 'tr', 'sed'])
      expect(
        pipelineVouches([
          ['kubectl', 'get', 'pods', '-o', 'json'],
          [builder, 'x'],
        ]),
      ).toBe(false);
    expect(pipelineVouches([])).toBe(false);
  });

  it("gives the RCA no link from jq -n's output, run for real", async () => {
    const bash = createBashToolset({
      allow: [],
      deny: [],
      curlHosts: [],
      timeoutMs: 10_000,
      maxOutputBytes: 10_000,
      env: [],
      sandbox: 'none',
    });
    const executor = new ToolExecutor({ tools: bash.tools });
    const command = `jq -n '"see https://evil" + ".example/phish"'`;
    const result = await executor.execute({ id: 'c1', name: 'bash', arguments: JSON.stringify({ command }) });
    expect(result).toMatchObject({ status: 'success', data: '"see https://evil.example/phish"\n' });
    expect(result.vouches).toBeUndefined();
    expect(vouchedHosts([result])).toEqual([]);
  });
});
