/** Relative links in Markdown files, and whether each points at a file (and heading) that exists. */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** The text outside fenced code blocks, with inline code spans blanked. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, 'code');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The targets of a file's Markdown links that are not absolute URLs. */
export function relativeLinks(markdown: string): string[] {
  const targets = [...prose(markdown).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t));
}

/**
 * Each broken link of the file, as "file: target (why)", paths relative to root. A link to a file in
 * `mayBeMissing` (absolute paths) is accepted while that file does not exist.
 */
export function brokenLinks(root: string, file: string, mayBeMissing: readonly string[] = []): string[] {
  const text = readFileSync(file, 'utf8');
  return relativeLinks(text).flatMap((target) => {
    const [path, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = path ? join(dirname(file), decodeURIComponent(path)) : file;
    const where = `${relative(root, file)}: ${target}`;
    if (!existsSync(resolved)) return mayBeMissing.includes(resolved) ? [] : [`${where} (no such file)`];
    if (!anchor || statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return [];
    return anchorsOf(readFileSync(resolved, 'utf8')).has(anchor) ? [] : [`${where} (no such heading)`];
  });
}
