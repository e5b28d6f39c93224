import { describe, expect, it } from 'vitest';
import { hasApprovalCommand, parseApprovalCommands } from '../../../../sources/common/approval-commands.js';

const md = (text: string) => parseApprovalCommands(text, 'markdown');
const jira = (text: string) => parseApprovalCommands(text, 'jira');

describe('approval commands in a comment', () => {
  it('reads approve and deny lines, one call each, with a denial reason', () => {
    expect(md('/lestrade approve call_a1\n/lestrade deny call_b2 not during business hours')).toEqual({
      commands: [
        { toolCallId: 'call_a1', approved: true },
        { toolCallId: 'call_b2', approved: false, feedback: 'not during business hours' },
      ],
      refused: [],
    });
    expect(md('/Lestrade DENY `call_c3`').commands).toEqual([{ toolCallId: 'call_c3', approved: false }]);
    expect(jira('/lestrade approve {{call_d4}}').commands).toEqual([{ toolCallId: 'call_d4', approved: true }]);
  });

  it('takes command lines anywhere in the comment, but only at the start of a line', () => {
    const text = 'Looked at it.\n\n/lestrade approve call_a1\nthanks, please /lestrade approve call_zz';
    expect(md(text).commands).toEqual([{ toolCallId: 'call_a1', approved: true }]);
    expect(md('/lestrade approver call_a1').commands).toEqual([]);
    expect(md('/lestrade investigate').commands).toEqual([]);
  });

  it('never reads a command in a fenced or indented code block, an HTML comment or a quote (Markdown)', () => {
    const text = [
      '```',
      '/lestrade approve call_in_fence',
      '```',
      '~~~~',
      '/lestrade approve call_in_tildes',
      '~~~',
      '~~~~',
      '    /lestrade approve call_indented',
      '\t/lestrade approve call_tab',
      '> /lestrade approve call_quoted',
      ' >/lestrade deny call_quoted2',
      '> a quote goes on',
      '/lestrade approve call_lazy_continuation',
      '',
      '<!--',
      '/lestrade approve call_hidden',
      '-->',
      '<!-- /lestrade approve call_hidden2 -->',
    ].join('\n');
    expect(md(text)).toEqual({ commands: [], refused: [] });
    expect(hasApprovalCommand(text, 'markdown')).toBe(false);
    // The same lines after the blocks close do count.
    expect(md(`${text}\n/lestrade approve call_after`).commands).toEqual([
      { toolCallId: 'call_after', approved: true },
    ]);
  });

  it('never reads a command in a <details> block, nested or not, on its opening or closing line (Markdown)', () => {
    const text = [
      '<details><summary>earlier pending calls</summary>',
      '',
      '/lestrade approve call_in_details',
      '<details open>',
      '/lestrade approve call_nested',
      '</details>',
      '/lestrade approve call_still_in_outer',
      '</DETAILS>',
      '<details>/lestrade approve call_same_line</details>',
      '<details>',
      '```',
      '</details>',
      '```',
      '/lestrade approve call_after_fence_in_details',
      '</details>',
    ].join('\n');
    expect(md(text)).toEqual({ commands: [], refused: [] });
    expect(hasApprovalCommand(text, 'markdown')).toBe(false);
    expect(md(`${text}\n/lestrade approve call_after`).commands).toEqual([
      { toolCallId: 'call_after', approved: true },
    ]);
  });

  it('hides what an HTML comment holds when it opens mid-line, and reads what is shown after one closes', () => {
    const text = [
      'Sure. <!-- hidden from here',
      '/lestrade approve call_hidden',
      'still hidden --> /lestrade approve call_shown_after_close',
      '<!-- note --> /lestrade approve call_visible',
    ].join('\n');
    expect(md(text).commands).toEqual([
      { toolCallId: 'call_shown_after_close', approved: true },
      { toolCallId: 'call_visible', approved: true },
    ]);
  });

  it('never reads a command in {code}, {noformat} or {quote}, or on a bq. or > line (Jira)', () => {
    const text = [
      '{code:bash}',
      '/lestrade approve call_in_code',
      '{code}',
      '{noformat}/lestrade approve call_same_line{noformat}',
      '{quote}',
      '/lestrade approve call_quoted',
      '{quote}',
      'bq. /lestrade approve call_bq',
      '> /lestrade approve call_adf_quote',
    ].join('\n');
    expect(jira(text)).toEqual({ commands: [], refused: [] });
    expect(jira(`${text}\n/lestrade deny call_after no`).commands).toEqual([
      { toolCallId: 'call_after', approved: false, feedback: 'no' },
    ]);
  });

  it('refuses, with a reason, what it will not guess at: no id, "all", two ids to approve, a bad id', () => {
    const r = md(
      [
        '/lestrade approve',
        '/lestrade approve all',
        '/lestrade approve call_a1 call_b2',
        '/lestrade deny <script>',
        `/lestrade approve ${'x'.repeat(300)}`,
      ].join('\n'),
    );
    expect(r.commands).toEqual([]);
    expect(r.refused).toEqual([
      '/lestrade approve names no call: write /lestrade approve <call>',
      expect.stringContaining('/lestrade approve all is not taken'),
      expect.stringContaining('takes one call per line'),
      expect.stringContaining('is not a call id'),
      expect.stringContaining('is not a call id'),
    ]);
  });

  it('counts only the first line that names a call', () => {
    const r = md('/lestrade deny call_a1 risky\n/lestrade approve call_a1');
    expect(r.commands).toEqual([{ toolCallId: 'call_a1', approved: false, feedback: 'risky' }]);
    expect(r.refused).toEqual(['call call_a1 is named twice: only its first line counts']);
  });

  it('cuts a denial reason to the API limit', () => {
    const [c] = md(`/lestrade deny call_a1 ${'w '.repeat(3000)}`).commands;
    expect(c!.feedback!.length).toBe(4000);
  });
});
