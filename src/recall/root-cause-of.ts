import { Lexer } from 'marked';

/** The heading of the RCA's root-cause section (templates/investigate.jinja2 asks for "## Root cause"). */
const ROOT_CAUSE_HEADING = /^\W*root[\s-]*causes?\b/i;

/**
 * The root-cause section of an RCA in Markdown: the text under its "Root cause" heading (any level) up to
 * the next heading of the same or a higher level. An RCA without one (a model that ignored the format)
 * is remembered whole; memory clips it.
 */
export function rootCauseOf(rca: string): string {
  const tokens = Lexer.lex(rca, { gfm: true });
  const start = tokens.findIndex((t) => t.type === 'heading' && ROOT_CAUSE_HEADING.test(String(t.text)));
  if (start < 0) return rca.trim();
  const depth = (tokens[start] as { depth: number }).depth;
  let text = '';
  for (const token of tokens.slice(start + 1)) {
    if (token.type === 'heading' && token.depth <= depth) break;
    text += token.raw;
  }
  return text.trim() || rca.trim();
}
