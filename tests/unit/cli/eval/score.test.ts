import { describe, expect, it } from 'vitest';
import { citedEvidence, judgeContains, sectionsPresent } from '../../../../cli/eval/score.js';

const ANSWER = `## Alert explanation
The pod restarts.
## Key findings
- \`cart-api-7d9f8b6c54-x2kqp\` exits with code 1 after 7 restarts.
## Root cause
The **config.yaml**   has an error at
line 14.
## Next steps
- Fix it in v1.18.1.`;

describe('eval scoring', () => {
  it('--judge contains: case-insensitive, whitespace runs and markdown marks ignored, one verdict per fact', () => {
    expect(judgeContains(ANSWER, ['Config.yaml', 'LINE 14', 'line 15'])).toEqual([
      { fact: 'Config.yaml', present: true, reasoning: 'found in the answer' },
      { fact: 'LINE 14', present: true, reasoning: 'found in the answer' },
      { fact: 'line 15', present: false, reasoning: 'not found in the answer (contains)' },
    ]);
  });

  it('finds the four sections as headings of any level, and only as headings', () => {
    expect(sectionsPresent(ANSWER)).toEqual(['Alert explanation', 'Key findings', 'Root cause', 'Next steps']);
    expect(sectionsPresent('### root cause\nx\nKey findings: none')).toEqual(['Root cause']);
  });

  it('counts the findings’ names and numbers that a tool output contains (next steps are not findings)', () => {
    const outputs = ['NAME READY\ncart-api-7d9f8b6c54-x2kqp 0/1', 'loading /etc/app/config.yaml'];
    const e = citedEvidence(ANSWER, outputs);
    expect(e.examples).toEqual(['cart-api-7d9f8b6c54-x2kqp', 'config.yaml']);
    expect(e.cited).toBe(2);
    expect(e.checked).toBeGreaterThan(2);
    expect(citedEvidence(ANSWER, ['v1.18.1 is out']).cited).toBe(0);
  });
});
