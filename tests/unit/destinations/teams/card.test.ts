import { describe, expect, it } from 'vitest';
import { headingsBold } from '../../../../destinations/teams/card.js';

describe('Teams card: headings as bold lines', () => {
  it('turns ATX headings into bold lines, leaving fenced code and other lines alone', () => {
    const md = ['## Root cause', 'text ## not a heading', '```', '# a comment in code', '```', '### Fix ###'].join(
      '\n',
    );
    expect(headingsBold(md).split('\n')).toEqual([
      '**Root cause**',
      'text ## not a heading',
      '```',
      '# a comment in code',
      '```',
      '**Fix**',
    ]);
  });
});
