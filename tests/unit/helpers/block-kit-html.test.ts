import { describe, expect, it } from 'vitest';
import { cardMarkdownToHtml, mrkdwnToHtml } from '../../helpers/block-kit-html.js';

/** The docs' screenshot renderer: whatever a message holds, the page it makes runs nothing and links only as sent. */
describe('block-kit-html', () => {
  it('renders mrkdwn formatting, links and code, escaping everything else', () => {
    const html = mrkdwnToHtml(
      '*bold* _it_ `a<b>` &lt;script&gt;x&lt;/script&gt; <https://ok.example/a?b=1&amp;c=2|the "link"> <@U1> :red_circle:\n```<img src=x onerror=alert(1)>```',
    );
    expect(html).toContain('<b>bold</b>');
    expect(html).toContain('<i>it</i>');
    expect(html).toContain('<code>a&lt;b&gt;</code>');
    expect(html).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(html).toContain('<a href="https://ok.example/a?b=1&amp;c=2">the &quot;link&quot;</a>');
    expect(html).toContain('<span class="mention">@U1</span>');
    expect(html).toContain('<pre>&lt;img src=x onerror=alert(1)&gt;</pre>');
    expect(html).not.toMatch(/<script|<img/);
  });

  it('makes no link of a non-http target', () => {
    expect(mrkdwnToHtml('<javascript:alert(1)|click>')).toBe('click');
  });

  it('renders the TextBlock subset of Markdown, escaping HTML', () => {
    const html = cardMarkdownToHtml('**b** <script>x</script>\n- one\n- [two](https://ok.example/)\n1. first');
    expect(html).toBe(
      '<p><b>b</b> &lt;script&gt;x&lt;/script&gt;</p><ul><li>one</li><li><a href="https://ok.example/">two</a></li></ul><ol><li>first</li></ol>',
    );
  });
});
