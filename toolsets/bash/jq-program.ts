/**
 * jq program text as code: string literals are replaced by "" but their interpolations \(...)
 * stay, since they are code (jq -n '"\(env)"'). Comments run to the end of the line, and a command
 * line has one. Returns null when the text does not lex (an unterminated string or interpolation).
 */
export function jqCode(program: string): string | null {
  let out = '';
  /** One entry per open interpolation: the paren depth inside it. */
  const interpolations: number[] = [];
  let i = 0;
  while (i < program.length) {
    const ch = program[i]!;
    if (ch === '#') break;
    if (ch === '"') {
      const end = stringPart(program, i + 1);
      if (end === null) return null;
      out += '""';
      if (end.interpolation) {
        out += ' (';
        interpolations.push(0);
      }
      i = end.next;
      continue;
    }
    if (interpolations.length && ch === '(') interpolations[interpolations.length - 1]! += 1;
    if (interpolations.length && ch === ')') {
      if (interpolations.at(-1) === 0) {
        // The interpolation ends: the string it sits in goes on.
        interpolations.pop();
        out += ') ';
        const end = stringPart(program, i + 1);
        if (end === null) return null;
        if (end.interpolation) {
          out += '""(';
          interpolations.push(0);
        }
        i = end.next;
        continue;
      }
      interpolations[interpolations.length - 1]! -= 1;
    }
    out += ch;
    i++;
  }
  return interpolations.length ? null : out;
}

/** Reads string text from `start` to its closing quote or its next \( ; null when unterminated. */
function stringPart(program: string, start: number): { next: number; interpolation: boolean } | null {
  for (let i = start; i < program.length; i++) {
    const c = program[i];
    if (c === '"') return { next: i + 1, interpolation: false };
    if (c === '\\') {
      if (program[i + 1] === '(') return { next: i + 2, interpolation: true };
      i++;
    }
  }
  return null;
}
