import { describe, expect, it } from 'vitest';
import { parseFeedbackCommand } from '../../../../sources/common/feedback-commands.js';

describe('parseFeedbackCommand', () => {
  it('reads each verdict: the rest is the root cause with wrong, a note otherwise', () => {
    expect(parseFeedbackCommand('/lestrade correct', 'markdown')).toEqual({ verdict: 'correct' });
    expect(parseFeedbackCommand('Hm.\n/lestrade Partly  the pool too ', 'markdown')).toEqual({
      verdict: 'partly',
      note: 'the pool too',
    });
    expect(parseFeedbackCommand('/lestrade wrong the DNS cache', 'jira')).toEqual({
      verdict: 'wrong',
      rootCause: 'the DNS cache',
    });
    expect(parseFeedbackCommand('/lestrade wrong ' + 'x'.repeat(3000), 'markdown')?.rootCause).toHaveLength(2000);
  });

  it('takes the first verdict line only, and none that is quoted, in code, or another word', () => {
    expect(parseFeedbackCommand('/lestrade wrong a\n/lestrade correct', 'markdown')).toEqual({
      verdict: 'wrong',
      rootCause: 'a',
    });
    expect(parseFeedbackCommand('> /lestrade correct', 'markdown')).toBeNull();
    expect(parseFeedbackCommand('```\n/lestrade correct\n```', 'markdown')).toBeNull();
    expect(parseFeedbackCommand('{code}\n/lestrade correct\n{code}', 'jira')).toBeNull();
    expect(parseFeedbackCommand('/lestrade correctly', 'markdown')).toBeNull();
    expect(parseFeedbackCommand('/lestrade approve c1', 'markdown')).toBeNull();
    expect(parseFeedbackCommand('say /lestrade correct', 'markdown')).toBeNull();
  });
});
