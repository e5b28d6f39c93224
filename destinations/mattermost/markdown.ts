/**
 * Text for Mattermost's Markdown. The RCA and answers arrive as sanitised Markdown (src/render/sanitize-markdown.ts:
 * links only to allowed hosts); here every `@` that could start a mention (@channel, @all, @here, @someone) gets a
 * word joiner after it, whatever writeBack.allowMentions says, as Slack's renderer does. Plain untrusted text
 * (titles, labels, parameters, questions) is also escaped, so it cannot form Markdown, links or autolinks.
 */
export function neutraliseMentions(text: string): string {
  return text.replace(/@(?=[\p{L}\p{N}_.-])/gu, '@\u2060');
}

/** Untrusted plain text as inert Markdown: specials escaped, mentions and autolinks broken, one line. */
export function plain(text: string): string {
  const escaped = text
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\`*_{}[\]()#+\-.!|<>~&]/g, (c) => `\\${c}`)
    // Mattermost autolinks scheme://… and www.…: a word joiner stops it.
    .replace(/:\/\//g, ':\u2060//')
    .replace(/\bwww\\\./gi, (m) => `${m.slice(0, 3)}\u2060${m.slice(3)}`);
  return neutraliseMentions(escaped);
}

/** Untrusted text inside a code block: fences cannot be closed from inside. */
export function codeBlock(text: string): string {
  return `\`\`\`\n${text.replace(/`{3,}/g, (m) => m.split('').join('\u200b'))}\n\`\`\``;
}

/** Sanitised Markdown from the engine, with mentions neutralised. */
export function markdown(md: string): string {
  return neutraliseMentions(md);
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
