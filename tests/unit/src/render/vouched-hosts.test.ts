import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../../../src/records/tool-result.js';
import { vouchedHosts } from '../../../../src/render/vouched-hosts.js';

const result = (data: string, params: Record<string, unknown> = {}, over: Partial<ToolResult> = {}): ToolResult => ({
  tool: 't',
  status: 'success',
  data,
  params,
  elapsedMs: 1,
  vouches: true,
  ...over,
});

describe('the hosts tool results vouch for', () => {
  it('are the hosts named in results read from an outside system, no_data ones included', () => {
    expect(
      vouchedHosts([
        result('see https://grafana.internal/d/1 and http://prom.internal:9090/graph'),
        result('runbook at www.wiki.internal/x', {}, { status: 'no_data' }),
      ]).sort(),
    ).toEqual(['grafana.internal', 'prom.internal', 'www.wiki.internal']);
  });

  it('are never named by a result the model wrote, an error, a denial or a call waiting for approval', () => {
    expect(
      vouchedHosts([
        result('see https://evil.example/phish', { command: 'jq -n ...' }, { vouches: undefined }),
        result('', {}, { status: 'error', error: 'https://err.example', data: undefined }),
        result('https://denied.example', {}, { status: 'denied' }),
        result('https://waiting.example', {}, { status: 'approval_required' }),
      ]),
    ).toEqual([]);
  });

  it("leave out a host the call's own arguments name, however they write it", () => {
    const echoed = (args: Record<string, unknown>, data: string) => vouchedHosts([result(data, args)]);
    // A system that echoes the model's text back (PromQL label_replace, a query string curl sends).
    expect(
      echoed({ query: 'label_replace(vector(1),"x","https://evil.example/p","","")' }, 'x="https://evil.example/p"'),
    ).toEqual([]);
    expect(
      echoed({ url: 'https://ok.internal/?u=https://EVIL.example' }, 'https://evil.example and https://ok.internal'),
    ).toEqual([]);
    // Without a scheme, split from it, percent-encoded or as an IDN: still the model's choice.
    expect(echoed({ q: ['https://', 'evil.example/p'] }, 'https://evil.example/p')).toEqual([]);
    expect(echoed({ q: 'https://evil%2Eexample/p' }, 'https://evil.example/p')).toEqual([]);
    expect(echoed({ q: 'https://évil.example/p' }, 'https://xn--vil-9la.example/p')).toEqual([]);
    expect(echoed({ q: 'up' }, 'https://grafana.internal/d')).toEqual(['grafana.internal']);
  });
});
