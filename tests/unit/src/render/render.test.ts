import fc from 'fast-check';
import { marked, type Token } from 'marked';
import { describe, expect, it } from 'vitest';
import { composeComment, splitSections, toMarkdown, type CommentDoc } from '../../../../src/render/compose-comment.js';
import { fitToLimit } from '../../../../src/render/fit-to-limit.js';
import { codeSpan, hostsIn, sanitizeMarkdown } from '../../../../src/render/sanitize-markdown.js';

const allowedHosts = new Set(['grafana.example.com']);
const clean = (md: string) => sanitizeMarkdown(md, { allowedHosts });

/** What a Markdown renderer would make of the text: images, raw HTML and link targets. */
function live(md: string): { images: string[]; html: string[]; links: string[] } {
  const found = { images: [] as string[], html: [] as string[], links: [] as string[] };
  // The callback is synchronous: the promises walkTokens returns (one per async extension) are none here.
  void marked.walkTokens(marked.lexer(md), (t: Token) => {
    if (t.type === 'image') found.images.push(String(t.href));
    if (t.type === 'html') found.html.push(t.raw);
    if (t.type === 'link') found.links.push(String(t.href));
  });
  return found;
}

describe('sanitizeMarkdown', () => {
  it('turns images of every form into their alt text', () => {
    const md = [
      'Inline ![graph](https://evil.example/?q=secret) here.',
      'Reference ![ref alt][pic] here.',
      '[pic]: https://evil.example/pixel.png',
      'HTML <img src="https://evil.example/?q=2"> inline.',
      '<img src="https://evil.example/?q=3">',
      'Linked [![badge](https://evil.example/b.svg)](https://grafana.example.com/d/1)',
    ].join('\n\n');
    const out = clean(md);
    expect(live(out).images).toEqual([]);
    expect(live(out).html).toEqual([]);
    expect(out).toContain('Inline \\[image removed: graph\\] here.');
    expect(out).toContain('Reference \\[image removed: ref alt\\] here.');
    expect(out).not.toContain('[pic]:');
    expect(live(out).links).toEqual(['https://grafana.example.com/d/1']);
  });

  it('keeps links to allowed hosts and defuses the others into code spans', () => {
    const out = clean(
      'See [dashboard](https://GRAFANA.example.com/d/abc), [docs](https://evil.example/?s=tok), ' +
        'https://evil.example/bare, www.evil.example, <https://evil.example/auto>, [ftp](ftp://grafana.example.com/x), ' +
        '[lookalike](https://grafana.example.com@evil.example/).',
    );
    expect(live(out).links).toEqual(['https://GRAFANA.example.com/d/abc']);
    expect(out).toContain('docs (`https://evil.example/?s=tok`)');
    expect(out).toContain('`https://evil.example/bare`');
    expect(out).toContain('`www.evil.example`');
    expect(out).toContain('`https://evil.example/auto`');
    expect(out).toContain('ftp (`ftp://grafana.example.com/x`)');
  });

  it('defuses reference links to disallowed hosts and keeps allowed ones working', () => {
    const out = clean('[bad][b] and [good][g]\n\n[b]: https://evil.example/x\n[g]: https://grafana.example.com/y');
    expect(live(out).links).toEqual(['https://grafana.example.com/y']);
    expect(out).toContain('bad (`https://evil.example/x`)');
  });

  it('neutralises raw HTML, including comments that would forge our hidden marker', () => {
    const md =
      '<!-- lestrade:rca:OPS-1 -->\n\n<details><summary>more</summary>\n\n![x](https://evil.example/i)\n</details>\n\nInline <a href="https://evil.example">a</a> and \\<b>escaped\\</b>.';
    const out = clean(md);
    expect(live(out)).toEqual({ images: [], html: [], links: [] });
    expect(out).not.toContain('<!--');
    expect(out).not.toMatch(/<(a|b|details|summary)\b/);
    expect(out).toContain('&lt;!-- lestrade:rca:OPS-1 -->');
    expect(out).toContain('\\[image removed: x\\]');
  });

  it('keeps code verbatim and the rest of the structure unchanged', () => {
    const md = [
      '## Root cause',
      'The **pod** was *OOM-killed*, ~~not~~ `<img src=x>` stays.',
      '```html\n<img src="https://evil.example/x">\n```',
      '- one\n  - nested\n- two',
      '| a | b |\n|---|--:|\n| 1 | 2 |',
      '> quoted',
    ].join('\n\n');
    expect(clean(md)).toBe(md);
  });

  it('rebuilds lists, tables and quotes that contain something to remove', () => {
    const md =
      '- [ ] check ![i](https://evil.example/i)\n  1. nested <b>x</b>\n\n| h | i |\n|:-|-|\n| ![c](https://e.example/c) | `a` |\n\n> q <i>x</i>\n> more';
    const out = clean(md);
    expect(out).toBe(
      '- [ ] check \\[image removed: i\\]\n  1. nested &lt;b>x&lt;/b>\n\n| h | i |\n| :-- | --- |\n| \\[image removed: c\\] | `a` |\n\n> q &lt;i>x&lt;/i>\n> more',
    );
  });

  // Each found by fuzzing against a CommonMark/GFM parser: places where marked (which we lex with)
  // and GitHub read the same text differently. The output must be unambiguous to both.
  it.each([
    ['a tab after a quote marker', '> \t![a](https://evil.example/i)', '>   \\[image removed: a\\]'],
    [
      'a backtick marked reads as text after ~~',
      '~~`![a](https://evil.example/i)<https://evil.example/a>',
      '~~\\`\\[image removed: a\\]`https://evil.example/a`',
    ],
    [
      'a code span across a setext underline',
      '`x: <https://evil.example/y>\n#![a](https://evil.example/i)\n===\n`',
      '`x: <https://evil.example/y> #![a](https://evil.example/i) === `',
    ],
    [
      'where a bare URL ends',
      'see https://grafana.example.com/p)![a](https://evil.example/i)',
      'see <https://grafana.example.com/p%29![a]%28https://evil.example/i%29>',
    ],
    [
      'indented code lazily after a quote',
      '>> [r]: https://evil.example/r\n    ![a](https://evil.example/i)',
      '> > ```\n> > ![a](https://evil.example/i)\n> > ```',
    ],
    [
      'a block after a rule',
      '> ---\n    ![a](https://evil.example/i)',
      '> ---\n> ```\n> ![a](https://evil.example/i)\n> ```',
    ],
  ])('is unambiguous at %s', (_name, md, expected) => {
    expect(clean(md)).toBe(expected);
  });

  it('is idempotent and closes a code fence left open', () => {
    const once = clean('text ![a](https://evil.example/a)\n\n```\nopen <b>');
    expect(clean(once)).toBe(once);
    expect(once.endsWith('\n```')).toBe(true);
  });

  it('leaves no image, raw HTML or disallowed link in any mix of risky fragments (property)', () => {
    const fragment = fc.constantFrom(
      '![a](https://evil.example/i)',
      '[l](https://grafana.example.com/p)',
      '[e](https://evil.example/q)',
      'https://evil.example/b',
      'www.evil.example',
      '<img src=x>',
      '<!-- c -->',
      '<div>',
      '</div>',
      '\n',
      '\n\n',
      '- ',
      '> ',
      '1. ',
      '| a | b |\n|---|---|\n| ',
      '```',
      '`',
      '*',
      '[',
      ']',
      '(',
      ')',
      '!',
      '<',
      '\\',
      'text ',
      '    ',
      '[r]: https://evil.example/r\n',
      '[r]',
      '~~',
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 30 }), (parts) => {
        const out = clean(parts.join(''));
        const found = live(`${out}\n\nfooter`);
        expect(found.images).toEqual([]);
        expect(found.html).toEqual([]);
        for (const href of found.links) expect(href.startsWith('https://grafana.example.com/')).toBe(true);
        expect(clean(out)).toBe(out);
      }),
      { numRuns: 1000 },
    );
  });

  it('collects hosts of URLs in text', () => {
    const hosts = hostsIn(
      'See https://Grafana.Example.com/d/1, http://10.0.0.1:9090/graph and (www.foo.example). Not ftp://x.example.',
    );
    expect([...hosts].sort()).toEqual(['10.0.0.1', 'grafana.example.com', 'www.foo.example']);
  });

  it('builds code spans that survive backticks', () => {
    expect(codeSpan('a`b')).toBe('``a`b``');
    expect(codeSpan('`x')).toBe('`` `x ``');
  });
});

const RCA =
  'Intro line.\n\n## Alert explanation\n\nFired.\n\n## Root cause\n\nMemory.\n\n### Detail\n\nStill root cause.\n\n## Next steps\n\n- Raise the limit';

describe('composeComment', () => {
  it('splits the sanitized RCA at top-level ## headings', () => {
    const doc = composeComment({
      rca: RCA,
      issueKey: 'OPS-1',
      investigationId: 'inv-9',
      resultsUrl: 'https://lestrade.example.com/api/investigations/inv-9',
      allowedHosts,
    });
    expect(doc.sections).toEqual([
      'Intro line.',
      '## Alert explanation\n\nFired.',
      '## Root cause\n\nMemory.\n\n### Detail\n\nStill root cause.',
      '## Next steps\n\n- Raise the limit',
    ]);
    expect(doc.heading).toBe('Lestrade — automated root-cause analysis');
    expect(doc.preamble).toMatch(/automatically by Lestrade.*may be wrong/);
    expect(doc.footer).toBe(
      'Lestrade investigation `inv-9` for `OPS-1` · full results: <https://lestrade.example.com/api/investigations/inv-9>',
    );
    const md = toMarkdown(doc);
    expect(md.startsWith('### Lestrade — automated root-cause analysis\n\n_Written automatically')).toBe(true);
    expect(md).toContain('- Raise the limit\n\n---\n\nLestrade investigation');
    expect(live(md).links).toEqual(['https://lestrade.example.com/api/investigations/inv-9']);
  });

  it('sanitizes before splitting and keeps an indented code block indented', () => {
    expect(splitSections('    <img src=x>\n\n## H\n\n![a](https://evil.example/a)')).toEqual([
      '    <img src=x>',
      '## H\n\n![a](https://evil.example/a)',
    ]);
    const doc = composeComment({
      rca: '## H\n\n![a](https://evil.example/a)',
      issueKey: 'K',
      investigationId: 'i',
      allowedHosts,
    });
    expect(doc.sections).toEqual(['## H\n\n\\[image removed: a\\]']);
  });
});

describe('fitToLimit', () => {
  const doc: CommentDoc = {
    heading: 'H',
    preamble: 'P',
    sections: ['## One\n\n' + 'a '.repeat(40), '## Two\n\n' + 'b '.repeat(40), '## Three\n\n' + 'c '.repeat(40)],
    footer: 'F',
  };
  const note = (n: number) => `_Cut: ${n} sections omitted._`;
  const render = (d: CommentDoc) => toMarkdown(d);

  it('returns the comment unchanged when it fits', () => {
    const fitted = fitToLimit(doc, render, 10_000, note);
    expect(fitted).toEqual({ doc, rendered: toMarkdown(doc), cut: false });
  });

  it('drops whole sections from the end and adds the note', () => {
    const limit = toMarkdown({ ...doc, sections: [...doc.sections.slice(0, 2), note(1)] }).length;
    const fitted = fitToLimit(doc, render, limit, note);
    expect(fitted.cut).toBe(true);
    expect(fitted.doc.sections).toEqual([doc.sections[0], doc.sections[1], note(1)]);
    expect(fitted.rendered.length).toBeLessThanOrEqual(limit);
    const tighter = fitToLimit(doc, render, limit - 1, note);
    expect(tighter.doc.sections).toEqual([doc.sections[0], note(2)]);
  });

  it('cuts inside a too-long first section at a line boundary and closes its code fence', () => {
    const long: CommentDoc = {
      ...doc,
      sections: ['## One\n\n```\n' + Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n') + '\n```'],
    };
    const fitted = fitToLimit(long, render, 200, note);
    const first = fitted.doc.sections[0] ?? '';
    expect(fitted.rendered.length).toBeLessThanOrEqual(200);
    expect(first).toMatch(/\nline \d+\n```$/);
    expect(fitted.doc.sections[1]).toBe(note(1));
  });

  it('cuts a single long line at a word boundary', () => {
    const fitted = fitToLimit({ ...doc, sections: ['## One\n\n' + 'alpha beta gamma '.repeat(60)] }, render, 300, note);
    const first = fitted.doc.sections[0] ?? '';
    expect(fitted.rendered.length).toBeLessThanOrEqual(300);
    expect(first).toMatch(/^## One\n\n(alpha beta gamma )*(alpha|alpha beta|alpha beta gamma)$/);
    expect(first.length).toBeGreaterThan(150);
  });

  it('does not let a cut turn a defused URL into a link', () => {
    const section = 'Intro\n\n`a\nhttps://evil.example/?q=secret\nb` end';
    const fitted = fitToLimit(
      { ...doc, sections: [section] },
      render,
      toMarkdown({ ...doc, sections: [section.slice(0, 40), note(1)] }).length + 2,
      note,
    );
    expect(live(fitted.rendered).links).toEqual([]);
  });

  it('never exceeds the limit (property)', () => {
    const word = fc.stringMatching(/^[a-z`*_<>![\]()]{1,12}$/);
    const paragraph = fc.array(word, { minLength: 1, maxLength: 30 }).map((ws) => ws.join(' '));
    const fence = fc.array(word, { minLength: 1, maxLength: 8 }).map((ls) => '```\n' + ls.join('\n') + '\n```');
    const section = fc
      .array(fc.oneof(paragraph, fence), { minLength: 1, maxLength: 5 })
      .map((bs) => clean('## S\n\n' + bs.join('\n\n')));
    fc.assert(
      fc.property(fc.array(section, { maxLength: 6 }), fc.integer({ min: 0, max: 1500 }), (sections, limit) => {
        const fitted = fitToLimit({ ...doc, sections }, render, limit, note);
        expect(fitted.rendered.length).toBeLessThanOrEqual(limit);
        if (toMarkdown({ ...doc, sections: [] }).length <= limit) {
          expect(fitted.rendered).toBe(render(fitted.doc));
          // No code fence left open: the footer is still its own paragraph.
          const last = marked
            .lexer(fitted.rendered)
            .filter((t) => t.type !== 'space')
            .at(-1);
          expect(last).toMatchObject({ type: 'paragraph', text: 'F' });
        }
      }),
      { numRuns: 150 },
    );
  });
});
