import type { ProgramShape } from './types.js';

/** Draws choices from a list of numbers fast-check made (and can shrink). */
export class Choices {
  private at = 0;
  constructor(private readonly draws: number[]) {}
  pick(n: number): number {
    const d = this.draws.length ? this.draws[this.at++ % this.draws.length]! : 0;
    return n <= 1 ? 0 : d % n;
  }
  chance(oneIn: number): boolean {
    return this.pick(oneIn) === 0;
  }
}

const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One word in a quoting the shell turns back into exactly that word. */
export function quoteWord(word: string, c: Choices): string {
  const forms: Array<(w: string) => string | null> = [
    (w) => (PLAIN.test(w) && !w.startsWith('#') ? w : null),
    (w) => (w.includes("'") ? null : `'${w}'`),
    (w) => `"${w.replace(/[\\"$`]/g, (m) => `\\${m}`)}"`,
    (w) => (w.length && /^[\x21-\x7e]+$/.test(w) ? w.replace(/[^A-Za-z0-9]/g, (m) => `\\${m}`) : null),
    (w) => {
      if (w.length < 2) return null;
      const cut = 1 + c.pick(w.length - 1);
      const a = quoteWord(w.slice(0, cut), c);
      let b = quoteWord(w.slice(cut), c);
      // A quote then a backslash: bash reads one word, the policy refuses it (see parse-command.ts).
      if (/['"]$/.test(a) && b.startsWith('\\')) b = `"${w.slice(cut).replace(/[\\"$`]/g, (m) => `\\${m}`)}"`;
      // Two quoted halves side by side make one word; a plain half next to a plain half is one word too.
      return a + b;
    },
  ];
  for (let tries = 0; tries < 8; tries++) {
    const form = forms[c.pick(forms.length)]!(word);
    if (form !== null) return form;
  }
  return `"${word.replace(/[\\"$`]/g, (m) => `\\${m}`)}"`;
}

/** Words joined by runs of spaces and tabs, with some around the line. */
export function joinWords(words: string[], c: Choices): string {
  const gap = () => [' ', '  ', '\t', ' \t '][c.pick(4)]!;
  const edge = () => (c.chance(3) ? gap() : '');
  return edge() + words.map((w, i) => (i === 0 ? w : gap() + w)).join('') + edge();
}

/**
 * Rewrites options into equivalent spellings: --name=value and --name value, -Xvalue and -X value,
 * short and long names, an added "--" before the first operand, and a harmless option added.
 * awk reads options only before its program; the others anywhere before "--".
 */
export function rewriteOptions(argv: string[], shape: ProgramShape, c: Choices): string[] {
  const [name, ...args] = argv;
  const posix = /awk$/.test(shape.program);
  const out: string[] = [];
  let i = 0;
  let firstOperand = -1;
  for (; i < args.length; i++) {
    const w = args[i]!;
    if (w === '--') break;
    if (!w.startsWith('-') || w === '-') {
      if (firstOperand < 0) firstOperand = out.length;
      out.push(w);
      if (posix) {
        i++;
        break;
      }
      continue;
    }
    const consumed = rewriteOne(w, args[i + 1], shape, c);
    out.push(...consumed.words);
    i += consumed.used - 1;
  }
  out.push(...args.slice(i));
  const optionAfterOperand = firstOperand >= 0 && out.slice(firstOperand).some((w) => w.startsWith('-') && w !== '-');
  if (shape.dashDash && firstOperand >= 0 && !optionAfterOperand && !out.includes('--') && c.chance(3))
    out.splice(firstOperand, 0, '--');
  if (shape.benign.length && c.chance(3)) out.unshift(...shape.benign[c.pick(shape.benign.length)]!);
  return [name!, ...out];
}

function rewriteOne(
  w: string,
  next: string | undefined,
  shape: ProgramShape,
  c: Choices,
): { words: string[]; used: number } {
  const alias = (n: string) => shape.aliases.find(([s, l]) => s === n || l === n);
  const swap = (n: string) => {
    const a = alias(n);
    if (!a || !c.chance(2)) return n;
    return a[0] === n ? a[1] : a[0];
  };
  const long = /^(--[A-Za-z0-9-]+)=(.*)$/.exec(w);
  if (long && shape.longValued.includes(long[1]!)) return { words: spell(swap(long[1]!), long[2]!, c), used: 1 };
  if (shape.longValued.includes(w) && next !== undefined) return { words: spell(swap(w), next, c), used: 2 };
  const short = /^-([A-Za-z])(.*)$/.exec(w);
  if (short && shape.shortValued.includes(short[1]!)) {
    if (short[2] === '' && next !== undefined) return { words: spell(swap(w), next, c), used: 2 };
    if (short[2] !== '' && !short[2]!.startsWith('='))
      return { words: spell(swap(`-${short[1]}`), short[2]!, c), used: 1 };
  }
  return { words: [alias(w) ? swap(w) : w], used: 1 };
}

/** An option and its value, attached or apart. */
function spell(name: string, value: string, c: Choices): string[] {
  const apart = c.chance(2);
  if (name.startsWith('--')) return apart ? [name, value] : [`${name}=${value}`];
  return apart || value === '' ? [name, value] : [`${name}${value}`];
}
