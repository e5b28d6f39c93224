import { LineCounter, parseDocument } from 'yaml';

/** A file split into its YAML front matter (parsed) and its Markdown body; `line` is 1-based in the file. */
export type FrontMatter =
  | { ok: true; data: unknown; body: string; lineOf: (path: ReadonlyArray<PropertyKey>) => number }
  | { ok: false; line: number; reason: string };

const OPEN = /^---[ \t]*\r?\n/;
const CLOSE = /^---[ \t]*$/m;

/**
 * Reads `---\n<yaml>\n---\n<markdown>`. A file without front matter, one whose block never closes, and
 * YAML that does not parse are refused with the line to look at.
 */
export function splitFrontMatter(text: string): FrontMatter {
  const open = OPEN.exec(text);
  if (!open) return { ok: false, line: 1, reason: 'no front matter: the file must start with a line "---"' };
  const rest = text.slice(open[0].length);
  const close = CLOSE.exec(rest);
  if (!close) return { ok: false, line: 1, reason: 'the front matter opened on line 1 is never closed with "---"' };
  const yamlText = rest.slice(0, close.index);
  const counter = new LineCounter();
  const doc = parseDocument(yamlText, { lineCounter: counter, prettyErrors: false });
  if (doc.errors.length > 0) {
    const err = doc.errors[0]!;
    const at = counter.linePos(err.pos[0]);
    return { ok: false, line: at.line + 1, reason: err.message.split('\n')[0]! };
  }
  const bodyStart = open[0].length + close.index + close[0].length;
  // The YAML starts on the file's line 2; a key that is not there (a missing field) points at the block's start.
  const lineOf = (path: ReadonlyArray<PropertyKey>): number => {
    const node = doc.getIn(path.map(String), true) as { range?: [number, number, number] } | undefined;
    return node?.range ? counter.linePos(node.range[0]).line + 1 : 2;
  };
  return { ok: true, data: doc.toJS() as unknown, body: text.slice(bodyStart).replace(/^\r?\n/, ''), lineOf };
}
