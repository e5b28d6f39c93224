import { describe, expect, it } from 'vitest';
import { sanitizeMarkdown } from '../../../../src/render/sanitize-markdown.js';
import { githubReferences } from '../../../helpers/github-references.js';

const allowedHosts = new Set<string>();

// Issue 16, defect 4: these reached GitHub comments verbatim, notifying people and teams and
// creating cross-reference events on other issues and repositories. This test failed before the fix.
describe('sanitizeMarkdown: mentions and cross-references', () => {
  const hostile = [
    'Paging @acme/sre-oncall and @dana about this.',
    'See #1, acme/shop#101 and other-org/secret-repo#7; also GH-42.',
    '- list item for @dana\n- and #3',
    '| who | ref |\n| --- | --- |\n| @dana | acme/shop#9 |',
    '> quoted @acme/security',
    '## Heading for @dana',
    '**@dana** and _#12_ and [link text @dana](https://nowhere.example/)',
    'escaped \\@dana and \\#5, entities &#64;dana &#x40;team &commat;x &#35;8 &num;9',
    '(@dana), "@dana", x.@dana',
  ];

  it.each(hostile)('neutralises %j unless mentions are allowed', (md) => {
    expect(githubReferences(md).length).toBeGreaterThan(0);
    const out = sanitizeMarkdown(md, { allowedHosts });
    expect(githubReferences(out)).toEqual([]);
    expect(githubReferences(sanitizeMarkdown(md, { allowedHosts, allowMentions: true })).length).toBeGreaterThan(0);
  });

  it('keeps the text as it reads: only an invisible break after @, # and GH-', () => {
    const out = sanitizeMarkdown('Ask @dana about acme/shop#101 and GH-42.', { allowedHosts });
    expect(out.replace(/\u200b/g, '')).toBe('Ask @dana about acme/shop#101 and GH-42.');
  });

  it('leaves code, headings and words with @ inside alone', () => {
    const md = '# Title\n\nHost db1@primary, run `kill @dana #1`.\n\n```\n@dana #2\n```';
    expect(sanitizeMarkdown(md, { allowedHosts })).toBe(md);
  });
});
