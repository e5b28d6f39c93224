import { describe, expect, it } from 'vitest';
import { escapeHtml, markdownToSafeHtml, renderMarkdown } from '../../../../src/dashboard/render-markdown.js';

const render = (md: string, hosts: string[] = ['grafana.example']) => renderMarkdown(md, hosts);

describe("renderMarkdown (the model's Markdown on a page)", () => {
  it('renders ordinary Markdown: headings, emphasis, code, tables, lists', () => {
    const html = render(
      '## Root cause\nThe **db** ran out of `connections`.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |',
    );
    expect(html).toContain('<h2>Root cause</h2>');
    expect(html).toContain('<strong>db</strong>');
    expect(html).toContain('<code>connections</code>');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('<td>1</td>');
  });

  it.each([
    ['a script block', '<script>alert(1)</script>'],
    ['an inline script', 'text <script>alert(1)</script> more'],
    ['an image with an event handler', '<img src=x onerror="alert(1)">'],
    ['an svg with onload', '<svg onload=alert(1)></svg>'],
    ['an iframe', '<iframe src="https://evil.example"></iframe>'],
    ['a style tag', '<style>body{display:none}</style>'],
    ['an html comment hiding a tag', '<!-- x --><b onclick="alert(1)">b</b>'],
  ])('escapes raw HTML: %s', (_what, md) => {
    const html = render(md);
    expect(html).not.toMatch(/<(script|img|svg|iframe|style|b)\b/i);
    expect(html).not.toMatch(/<[^>]+\son\w+=/i);
  });

  it.each([
    ['javascript:', '[x](javascript:alert(1))'],
    ['JavaScript: with entities', '[x](jav&#x61;script:alert(1))'],
    ['data:', '[x](data:text/html,<script>alert(1)</script>)'],
    ['vbscript:', '[x](vbscript:msgbox(1))'],
    ['an autolink', '<javascript:alert(1)>'],
    ['a reference link', '[x][r]\n\n[r]: javascript:alert(1)'],
  ])('never emits a %s link', (_what, md) => {
    const html = render(md);
    expect(html).not.toMatch(/href="\s*(javascript|data|vbscript):/i);
    expect(html).not.toMatch(/<a\b(?![^>]*href="https?:)/i);
  });

  it('keeps http(s) links to hosts the issue or a tool named, and only those', () => {
    const html = render('[graph](https://grafana.example/d/db) and [exfil](https://evil.example/?q=secret)');
    expect(html).toContain(
      '<a href="https://grafana.example/d/db" rel="noopener noreferrer nofollow" target="_blank">graph</a>',
    );
    expect(html).not.toContain('href="https://evil.example');
  });

  it('never draws an image, even from a named host (it would fetch)', () => {
    const html = render('![chart](https://grafana.example/c.png) ![px](https://evil.example/p.gif)');
    expect(html).not.toMatch(/<img\b/i);
  });

  it('draws images as the write-back sanitiser says they were removed (its wall is in place)', () => {
    expect(render('![chart](https://evil.example/c.png)')).toContain('[image removed: chart]');
  });

  describe('the renderer alone, without the write-back sanitiser in front', () => {
    const only = (md: string) => markdownToSafeHtml(md, new Set(['grafana.example']));

    it('escapes raw HTML blocks and inline tags', () => {
      expect(only('<script>alert(1)</script>')).toContain('&lt;script&gt;');
      expect(only('a <img src=x onerror=alert(1)> b')).not.toMatch(/<img\b/i);
    });

    it('keeps only http(s) links to vouched hosts, and draws images as their alt text', () => {
      expect(only('[x](javascript:alert(1))')).not.toContain('href');
      expect(only('[x](https://evil.example/)')).not.toContain('href');
      expect(only('[x](ftp://grafana.example/f)')).not.toContain('href');
      expect(only('[x](https://grafana.example/d)')).toContain('href="https://grafana.example/d"');
      expect(only('![alt](https://grafana.example/p.png)')).toBe('<p><span class="img-alt">[image: alt]</span></p>\n');
    });
  });

  it('escapes the five HTML-special characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});
