import { Marked, type Tokens } from 'marked';
import { sanitizeMarkdown } from '../render/sanitize-markdown.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** An http(s) URL whose host is one the issue or a tool result named; null for anything else. */
function safeHref(href: string, allowedHosts: ReadonlySet<string>): string | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return allowedHosts.has(url.hostname.toLowerCase()) ? url.href : null;
}

/**
 * Renders model-written Markdown (untrusted: the model read untrusted text) to HTML that cannot
 * run or fetch anything: first the engine's write-back sanitiser (links only to vouched hosts,
 * no images), then marked with a renderer that escapes every raw HTML token, draws images as
 * their alt text and keeps only http(s) links to those hosts. The page's Content-Security-Policy
 * (no inline script, images from this origin only) is the third wall.
 */
export function renderMarkdown(md: string, linkHosts: readonly string[]): string {
  const allowed = new Set(linkHosts.map((h) => h.toLowerCase()));
  return markdownToSafeHtml(sanitizeMarkdown(md, { allowedHosts: allowed }), allowed);
}

/** The second wall alone: Markdown to HTML with no raw HTML, no image and only vouched http(s) links. */
export function markdownToSafeHtml(md: string, allowed: ReadonlySet<string>): string {
  const marked = new Marked({
    gfm: true,
    async: false,
    renderer: {
      html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text),
      image: ({ text }: Tokens.Image) => `<span class="img-alt">[image: ${escapeHtml(text)}]</span>`,
      link(token: Tokens.Link) {
        const inner = this.parser.parseInline(token.tokens);
        const href = safeHref(token.href, allowed);
        if (!href) return inner;
        return `<a href="${escapeHtml(href)}" rel="noopener noreferrer nofollow" target="_blank">${inner}</a>`;
      },
    },
  });
  return marked.parse(md) as string;
}
