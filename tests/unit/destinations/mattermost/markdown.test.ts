import { describe, expect, it } from 'vitest';
import { codeBlock, markdown, plain } from '../../../../destinations/mattermost/markdown.js';

describe("Mattermost's Markdown from untrusted text", () => {
  it('breaks every mention, in plain text and in the sanitised RCA alike', () => {
    for (const out of [plain('@channel @all @here ping @alice'), markdown('@channel @all @here ping @alice')]) {
      expect(out).not.toMatch(/@(channel|all|here|alice)/);
      expect(out).toContain('@\u2060channel');
    }
  });

  it('plain text forms no Markdown, link or autolink', () => {
    const out = plain('**bold** [x](https://evil.example) https://evil.example www.evil.example\n# head');
    expect(out).toBe(
      '\\*\\*bold\\*\\* \\[x\\]\\(https:\u2060//evil\\.example\\) https:\u2060//evil\\.example www\u2060\\.evil\\.example \\# head',
    );
  });

  it('a code block cannot be closed from inside', () => {
    expect(codeBlock('a\n```\n@here')).toBe('```\na\n`\u200b`\u200b`\n@here\n```');
  });
});
