/** The options a command accepts, as the policy knows them. Anything else is unknown and needs a human. */
export interface OptionSpec {
  /** Options without a value: single letters ("i") and long names ("--ignore-case"). */
  flags?: string[];
  /**
   * Options that take the next word (or "=value", or the rest of a short cluster) as their value.
   * An option refused or asked about (below) that is also listed here takes its value too, so the
   * value is never mistaken for an operand.
   */
  valued?: string[];
  /** Options refused outright, with why. */
  denied?: Record<string, string>;
  /** Options that need a human, with why. */
  ask?: Record<string, string>;
  /** head -5, tail -20: a dash and digits is a count. */
  numericShorthand?: boolean;
  /** POSIX order (awk): options end at the first operand; every word after it is an operand. */
  stopAtOperand?: boolean;
}

export interface ParsedOptions {
  operands: string[];
  /** Every option seen, by its name as written ("-e", "--arg"), with its value if it takes one. */
  options: Array<{ name: string; value?: string }>;
  unknown: string[];
  denied: string[];
  ask: string[];
}

interface Ctx {
  spec: OptionSpec;
  flags: Set<string>;
  valued: Set<string>;
  out: ParsedOptions;
}

/** GNU-style option parsing: clusters (-iv), attached values (-n5, --lines=5), and "--" ending options. */
export function parseOptions(args: string[], spec: OptionSpec): ParsedOptions {
  const out: ParsedOptions = { operands: [], options: [], unknown: [], denied: [], ask: [] };
  const c: Ctx = { spec, flags: new Set(spec.flags ?? []), valued: new Set(spec.valued ?? []), out };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      c.out.operands.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      i = longOption(arg, args, i, c);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      if (spec.numericShorthand && /^-\d+$/.test(arg)) {
        c.out.options.push({ name: '-n', value: arg.slice(1) });
        continue;
      }
      i = shortCluster(arg, args, i, c);
      continue;
    }
    if (spec.stopAtOperand) {
      c.out.operands.push(...args.slice(i));
      break;
    }
    c.out.operands.push(arg);
  }
  return c.out;
}

/** "--name", "--name=value", "--name value". Returns the index consumed. */
function longOption(arg: string, args: string[], i: number, c: Ctx): number {
  const [written, inline] = splitOnce(arg, '=');
  const name = c.valued.has(written) || c.flags.has(written) ? written : abbreviated(written, c.spec);
  const takesValue = c.valued.has(name);
  const value = takesValue ? (inline ?? args[++i]) : inline;
  if (note(name, c)) {
    if (takesValue) c.out.options.push({ name, value });
    return i;
  }
  if (takesValue) c.out.options.push({ name, value });
  else if (c.flags.has(name) && inline === undefined) c.out.options.push({ name });
  else c.out.unknown.push(written);
  return i;
}

/**
 * GNU getopt_long (and curl) accept any unambiguous prefix of a long option: "--out" is "--output".
 * A prefix of a refused or asked-about option is taken as that option (the stricter reading); a
 * prefix of nothing listed stays what it was written as, and so unknown.
 */
function abbreviated(written: string, spec: OptionSpec): string {
  if (written.length < 3) return written;
  for (const table of [spec.denied, spec.ask]) {
    const hit = Object.keys(table ?? {}).find((n) => n.startsWith('--') && n.startsWith(written));
    if (hit) return hit;
  }
  return written;
}

function note(name: string, c: Ctx): boolean {
  const { denied, ask } = c.spec;
  if (denied && Object.hasOwn(denied, name)) c.out.denied.push(`${name}: ${denied[name]}`);
  else if (ask && Object.hasOwn(ask, name)) c.out.ask.push(`${name}: ${ask[name]}`);
  else return false;
  return true;
}

/** "-ivn5": flags until a valued letter, which takes the rest (or the next word). Returns the index consumed. */
function shortCluster(arg: string, args: string[], i: number, c: Ctx): number {
  for (let j = 1; j < arg.length; j++) {
    const letter = arg[j]!;
    const name = `-${letter}`;
    const noted = note(name, c);
    if (c.valued.has(letter)) {
      const rest = arg.slice(j + 1);
      c.out.options.push({ name, value: rest || args[++i] });
      return i;
    }
    if (noted) continue;
    if (c.flags.has(letter)) c.out.options.push({ name });
    else c.out.unknown.push(name);
  }
  return i;
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const at = s.indexOf(sep);
  return at < 0 ? [s, undefined] : [s.slice(0, at), s.slice(at + 1)];
}
