import type { Response } from 'express';
import { describe, expect, it } from 'vitest';
import { createPageRenderer } from '../../../../src/dashboard/page-renderer.js';
import { toToolCallRecord } from '../../../../src/store/investigation.js';

/** The investigation page's HTML for these tool calls (the rest of the page left empty). */
function pageWith(toolCalls: object[]): string {
  let html = '';
  const res = {
    locals: {},
    status: () => res,
    set: () => res,
    type: () => res,
    send: (body: string) => ((html = body), res),
  };
  const inv = { id: 'inv-1', status: 'completed', usage: { promptTokens: 0, completionTokens: 0 }, toolCalls };
  createPageRenderer()(res as unknown as Response, 'detail.njk', {
    inv,
    issue: { labels: {}, annotations: {} },
    toolCalls,
    answers: [],
    writeBacks: [],
    similar: [],
    feedback: [],
  });
  return html;
}

describe("the investigation page's tool call list", () => {
  it('shows the instance a call went to beside its name, escaped, and nothing for a call without one', () => {
    const record = toToolCallRecord({
      tool: 'prometheus_query',
      status: 'success',
      params: { query: 'up' },
      elapsedMs: 3,
      instance: 'prod-eu',
    });
    expect(record.instance).toBe('prod-eu');
    const html = pageWith([
      record,
      { ...record, instance: '<b>x</b>' },
      toToolCallRecord({ tool: 'kubectl_get', status: 'success', params: {}, elapsedMs: 1 }),
    ]);
    expect(html).toContain(
      '<code>prometheus_query</code> <span class="badge instance" title="instance">prod-eu</span>',
    );
    expect(html).toContain('<span class="badge instance" title="instance">&lt;b&gt;x&lt;/b&gt;</span>');
    expect(html).not.toContain('<b>x</b>');
    expect(html.match(/class="badge instance"/g)).toHaveLength(2);
  });
});
