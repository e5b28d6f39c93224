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
  }

  render(name: 'system' | 'investigate', ctx: PromptContext): string {
    return this.env.render(`${name}.jinja2`, ctx).trim();
  }
}
