import { marked, type Token } from 'marked';
import { describe, expect, it } from 'vitest';
import { toMarkdown } from '../../../../src/render/compose-comment.js';
import { COMMENT_PREAMBLE } from '../../../../src/render/compose-comment.js';
import type { SimilarPast } from '../../../../src/records/past-incident.js';
import { commentFor } from '../../../../src/delivery/comment-for.js';
import { anAlert } from '../../../helpers/issue.js';

const RCA = '## Root cause\nThe disk filled up.\n\n## Next steps\n- Grow the volume';
const past = (id: string, over: Partial<SimilarPast> = {}): SimilarPast => ({
  id,
  title: `past ${id}`,
  at: '2026-11-20T10:00:00.000Z',
  score: 0.9,
  verdict: null,
  rootCause: `cause of ${id}`,
  rootCauseBy: 'rca',
  sameFingerprint: false,
  ...over,
});
const inv = (similar: SimilarPast[], reused: { from: string } | null = null) => ({
  id: '11111111-2222-4333-8444-555555555555',
  issue: anAlert('a1', { url: 'https://am.example/#/alerts' }),
  rca: RCA,
  linkHosts: [],
  similar,
  reused,
});
const PUBLIC = { publicUrl: 'https://lestrade.example/' };

function links(md: string): string[] {
  const found: string[] = [];
  void marked.walkTokens(marked.lexer(md), (t: Token) => {
    if (t.type === 'link') found.push(String(t.href));
  });
  return found;
}

describe('the comment says "Seen before" when a confirmed similar past incident exists', () => {
  it('counts the similar ones, names the newest date, quotes the best confirmed root cause and who, and links it', () => {
    const doc = commentFor(
      inv([
        past('p-unrated', { at: '2026-12-01T08:00:00.000Z', score: 0.95 }),
        past('p-right', { verdict: 'correct', confirmedBy: 'alice', rootCause: 'The disk\nfilled   up.' }),
        past('p-right-2', { verdict: 'correct', confirmedBy: 'bob', score: 0.8 }),
      ]),
      PUBLIC,
    );
    const seen = doc.sections.at(-1)!;
    expect(seen).toBe(
      '**Seen before:** 3 times, last 2026-12-01 — The disk filled up. (confirmed by alice) · ' +
        '[past investigation](<https://lestrade.example/investigations/p-right>)',
    );
    // The RCA's own sections come first: the headline is still the RCA's.
    expect(doc.sections[0]).toBe('## Root cause\nThe disk filled up.');
    expect(links(toMarkdown(doc))).toContain('https://lestrade.example/investigations/p-right');
  });

  it('says "1 time" for one, and names the past investigation without a link when there is no public URL', () => {
    const doc = commentFor(inv([past('p1', { verdict: 'correct' })]));
    expect(doc.sections.at(-1)).toBe(
      '**Seen before:** 1 time, last 2026-11-20 — cause of p1 (confirmed) · past investigation `p1`',
    );
  });

  it('says nothing when no similar one was confirmed correct (wrong, partly, unrated), or none was found', () => {
    for (const similar of [
      [past('w', { verdict: 'wrong', confirmedBy: 'x', rootCauseBy: 'person' as const })],
      [past('p', { verdict: 'partly' }), past('u')],
      [],
    ]) {
      const doc = commentFor(inv(similar), PUBLIC);
      expect(doc.sections).toEqual(['## Root cause\nThe disk filled up.', '## Next steps\n- Grow the volume']);
      expect(toMarkdown(doc)).not.toContain('Seen before');
    }
  });

  it('sanitises the past root cause (third-party text): no image, no link to an unvouched host, no live mention', () => {
    const hostile =
      '![x](https://evil.example/p.png?d=secret) see [here](https://evil.example/steal) @oncall-team ' +
      '<img src="https://evil.example/i"> ' +
      'x'.repeat(400);
    const doc = commentFor(inv([past('p', { verdict: 'correct', rootCause: hostile, confirmedBy: '@boss' })]), PUBLIC);
    const seen = doc.sections.at(-1)!;
    expect(seen).not.toContain('](https://evil.example');
    expect(seen).not.toContain('<img');
    expect(seen).not.toMatch(/@oncall-team|@boss/);
    expect(links(seen)).toEqual(['https://lestrade.example/investigations/p']);
    // Clipped to one line of at most 300 characters of root cause.
    expect(seen.split('\n')).toHaveLength(1);
    expect(seen).toContain('…');
  });
});

describe('a reused RCA says so in the preamble, with how to re-run it', () => {
  it("names the predecessor and this investigation's re-run command", () => {
    const doc = commentFor(inv([past('p', { verdict: 'correct' })], { from: 'p' }), PUBLIC);
    expect(doc.preamble).toBe(
      `${COMMENT_PREAMBLE} This analysis is reused from investigation p, whose analysis of the same alert people ` +
        'confirmed correct: no model ran for this one. To investigate it afresh, re-run it (the Re-run button, ' +
        'or lestrade rerun 11111111-2222-4333-8444-555555555555).',
    );
  });

  it('keeps the usual preamble when the model ran', () => {
    expect(commentFor(inv([])).preamble).toBe(COMMENT_PREAMBLE);
  });
});
