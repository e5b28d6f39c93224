import { marked } from 'marked';

/**
 * What GitHub would turn into a notification or a cross-reference in rendered Markdown: its
 * mention and reference filters run over the text nodes of the HTML (never inside code), after
 * entities and backslash escapes are resolved. An approximation that errs towards finding too much.
 */
export function githubReferences(md: string): string[] {
  const html = marked.parse(md, { gfm: true, async: false });
  const text = decodeEntities(
    html
      .replace(/<pre[\s\S]*?<\/pre>/g, ' ')
      .replace(/<code[\s\S]*?<\/code>/g, ' ')
      .replace(/<[^>]*>/g, ''),
  );
  const found: string[] = [];
  const patterns = [
    /(?:^|[^A-Za-z0-9`])(@[A-Za-z0-9][A-Za-z0-9-]*(?:\/[A-Za-z0-9][A-Za-z0-9_-]*)?)/g,
    /([A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+#\d+)/g,
    /(?:^|[^A-Za-z0-9_/])(#\d+)/g,
    /\b(GH-\d+)/gi,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) found.push(m[1]!);
  return found;
}

function decodeEntities(s: string): string {
  return s
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(
      /&(commat|num|quot|lt|gt|amp);/g,
      (_, n: string) => ({ commat: '@', num: '#', quot: '"', lt: '<', gt: '>', amp: '&' })[n]!,
    );
}
