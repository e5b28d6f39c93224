import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import nunjucks from 'nunjucks';
import type { Issue } from '../issue.js';

export const BUILTIN_TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

export interface PromptContext {
  issue: Issue;
  toolsets: Array<{ name: string; description: string }>;
  now: string;
}

/**
 * Renders the system and investigate prompts. A user's templates directory is searched
 * first, so a file there with a built-in's name replaces it.
 */
export class PromptRenderer {
  private readonly env: nunjucks.Environment;

  constructor(userDir?: string) {
    const dirs = userDir ? [userDir, BUILTIN_TEMPLATES_DIR] : [BUILTIN_TEMPLATES_DIR];
    this.env = new nunjucks.Environment(new nunjucks.FileSystemLoader(dirs, { noCache: false }), {
      autoescape: false,
      throwOnUndefined: false,
      trimBlocks: true,
      lstripBlocks: true,
    });
    this.env.addFilter('unfence', unfence);
  }

  /**
   * `fence` is a fresh random tag per render: third-party text is wrapped in
   * <untrusted-TAG>…</untrusted-TAG>, and cannot close the fence because it cannot know the tag
   * (the `unfence` filter also removes it from the text, should it ever appear).
   */
  render(name: 'system' | 'investigate', ctx: PromptContext): string {
    return this.env.render(`${name}.jinja2`, { ...ctx, fence: randomBytes(6).toString('hex') }).trim();
  }
}

function unfence(text: unknown, fence: string): string {
  const s = String(text ?? '');
  return fence ? s.split(`untrusted-${fence}`).join('untrusted-(removed)') : s;
}
