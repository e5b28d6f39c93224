import { describe, expect, it } from 'vitest';
import type { DestinationView } from '../../../../src/delivery/destination.js';
import { renderAnswer } from '../../../../destinations/slack/answer-blocks.js';

const view = {
  investigation: { id: 'inv-1', url: 'https://lestrade.example/api/investigations/inv-1' },
  allowedHosts: ['prometheus.example', 'lestrade.example'],
} as unknown as DestinationView;

describe('Slack: a follow-up answer as a thread reply', () => {
  it('escapes the question and the answer: no mentions, links only to allowed hosts', () => {
    const msg = renderAnswer(view, {
      entry: 2,
      question: 'Why? <!channel> see http://evil.example/q @here',
      answer: 'Because. <!here> <@U0ADMIN> [x](https://evil.example/x) [graph](http://prometheus.example/g)',
      answeredAt: null,
    });
    const text = JSON.stringify(msg);
    for (const live of ['<!channel>', '<!here>', '<@U0ADMIN>', '<https://evil', '<http://evil', '"@here'])
      expect(text).not.toContain(live);
    expect(text).toContain('&lt;!channel&gt;');
    // A bare URL in the question is code, which Slack does not turn into a link.
    expect(text).toContain('`http://evil.example/q`');
    expect(text).toContain('<http://prometheus.example/g|graph>');
    expect(text).toContain('<https://lestrade.example/api/investigations/inv-1|Open in Lestrade>');
    expect(text).toContain('follow-up 3');
    expect(msg.text).not.toContain('<!channel>');
  });

  it('keeps within 50 blocks for a very long answer, saying the rest is on the page', () => {
    const answer = Array.from({ length: 80 }, (_, i) => `Paragraph ${i} ${'x'.repeat(2900)}`).join('\n\n');
    const msg = renderAnswer(view, { entry: 0, question: 'q', answer, answeredAt: null });
    expect(msg.blocks.length).toBeLessThanOrEqual(50);
    expect(JSON.stringify(msg.blocks.at(-2))).toContain("the rest is on the investigation's page");
  });
});
