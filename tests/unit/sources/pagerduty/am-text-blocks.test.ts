import { describe, expect, it } from 'vitest';
import { parseTextBlocks } from '../../../../sources/pagerduty/am-text-blocks.js';

describe('Alertmanager ≤ 0.29 text blocks, line by line', () => {
  it('keeps a value written with Windows line breaks, under its own name', () => {
    const text =
      'Labels:\n - alertname = A\nAnnotations:\n - summary = s\n - description = first\r\nsecond\r\nSource: http://p/graph\n';
    expect(parseTextBlocks(text)).toEqual([
      {
        labels: { alertname: 'A' },
        annotations: { summary: 's', description: 'first\r\nsecond\r' },
        source: 'http://p/graph',
      },
    ]);
  });

  it('reads " - name = value" only at the start of a line: elsewhere it continues the value before', () => {
    const text = 'Labels:\n - alertname = A\nAnnotations:\n - description = see\nalso - note = not a name\nSource: s\n';
    expect(parseTextBlocks(text)[0]?.annotations).toEqual({ description: 'see\nalso - note = not a name' });
  });
});
