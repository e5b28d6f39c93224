/**
 * A lexer for awk program text, as gawk and mawk read it, for the policy: words, operators and
 * literals (strings, regular expressions), comments dropped. Where awk implementations could read
 * the text differently (a "/" that may start a regex or divide, a "/" inside a bracket expression),
 * the lexer fails instead of guessing, so no code can hide inside what the policy took for a literal.
 */
export type AwkToken = { kind: 'word' | 'number' | 'op'; text: string } | { kind: 'string' | 'regex'; text: string };

export type AwkLex = { ok: true; tokens: AwkToken[] } | { ok: false; reason: string };

/** Keywords after which an expression starts: a "/" there opens a regex. */
const EXPRESSION_KEYWORDS = new Set([
  'print',
  'printf',
  'return',
  'case',
  'else',
  'do',
  'in',
  'getline',
  'delete',
  'BEGIN',
  'END',
]);
/** Keywords whose parenthesised condition is followed by a statement (which may start with a regex). */
const CONDITION_KEYWORDS = new Set(['if', 'while', 'for', 'switch']);
const OPERATORS = [
  '>>=',
  '**=',
  '&&',
  '||',
  '|&',
  '>>',
  '<=',
  '>=',
  '==',
  '!=',
  '!~',
  '++',
  '--',
  '+=',
  '-=',
  '*=',
  '/=',
  '%=',
  '^=',
  '**',
];

export function lexAwk(text: string): AwkLex {
  const tokens: AwkToken[] = [];
  /** For each open "(": whether it follows if/while/for/switch. */
  const parens: boolean[] = [];
  let afterCondition = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '#') break; // a comment runs to the end of the line, and a command line has one line
    if (ch === '\\') return { ok: false, reason: 'a backslash outside a string or regex is not allowed in awk' };
    if (ch === '"') {
      const end = stringEnd(text, i);
      if (end < 0) return { ok: false, reason: 'unterminated string in the awk program' };
      tokens.push({ kind: 'string', text: text.slice(i + 1, end) });
      i = end + 1;
    } else if (ch === '/' && slashOpensRegex(tokens.at(-1), afterCondition)) {
      const r = regexEnd(text, i);
      if (typeof r === 'string') return { ok: false, reason: r };
      tokens.push({ kind: 'regex', text: text.slice(i + 1, r) });
      i = r + 1;
    } else if (/[A-Za-z_]/.test(ch)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))![0];
      tokens.push({ kind: 'word', text: word });
      i += word.length;
    } else if (/[0-9.]/.test(ch) && /^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.test(text.slice(i))) {
      const num = /^(0[xX][0-9a-fA-F]+|\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/.exec(text.slice(i))![0];
      tokens.push({ kind: 'number', text: num });
      i += num.length;
    } else {
      const op = OPERATORS.find((o) => text.startsWith(o, i)) ?? ch;
      tokens.push({ kind: 'op', text: op });
      i += op.length;
    }
    afterCondition = trackParens(tokens, parens);
  }
  return { ok: true, tokens };
}

/** Keeps the paren stack; true when the token just read closed the condition of if/while/for/switch. */
function trackParens(tokens: AwkToken[], parens: boolean[]): boolean {
  const last = tokens.at(-1)!;
  if (last.kind !== 'op') return false;
  if (last.text === '(') {
    const before = tokens.at(-2);
    parens.push(before?.kind === 'word' && CONDITION_KEYWORDS.has(before.text));
    return false;
  }
  if (last.text === ')') return parens.pop() ?? false;
  return false;
}

/**
 * Division after an operand (a name, a number, a literal, ")" or "]"), a regex anywhere an
 * expression starts, as awk's grammar has it; after the ")" of if (...) a statement starts.
 */
function slashOpensRegex(prev: AwkToken | undefined, afterCondition: boolean): boolean {
  if (!prev) return true;
  if (prev.kind === 'word') return EXPRESSION_KEYWORDS.has(prev.text);
  if (prev.kind !== 'op') return false;
  if (prev.text === ')') return afterCondition;
  return !['$', ']', '++', '--'].includes(prev.text);
}

function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/**
 * Where a regex literal ends: at the first unescaped "/", as mawk and the one true awk read it.
 * gawk reads on when that "/" stands inside a bracket expression ([/]); such text is refused, with
 * the bracket depth counted as gawk counts it ("]" right after "[" or "[^" is a literal).
 */
function regexEnd(text: string, start: number): number | string {
  let depth = 0;
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') depth++;
    else if (c === ']' && depth > 0 && !/\[\^?$/.test(text.slice(start + 1, i))) depth--;
    else if (c === '/') {
      return depth > 0 ? 'a "/" inside [...] in an awk regex is read differently by gawk and mawk: write \\/' : i;
    }
  }
  return 'unterminated regex in the awk program';
}
