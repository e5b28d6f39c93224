/** The options a command accepts, as the policy knows them. Anything else is unknown and needs a human. */
export interface OptionSpec {
  /** Options without a value: single letters ("i") and long names ("--ignore-case"). */
  flags?: string[];
  /** Options that take the next word (or "=value", or the rest of a short cluster) as their value. */
  valued?: string[];
  /** Options refused outright, with why. */
  denied?: Record<string, string>;
  /** Options that need a human, with why. */
  ask?: Record<string, string>;
  /** head -5, tail -20: a dash and digits is a count. */
  numericShorthand?: boolean;
}

export interface ParsedOptions {
  operands: string[];
  /** Every option seen, by its name as written ("-e", "--arg"), with its value if it takes one. */
  options: Array<{ name: string; value?: string }>;
  unknown: string[];
  denied: string[];
  ask: string[];
}

/** GNU-style option parsing: clusters (-iv), attached values (-n5, --lines=5), and "--" ending options. */
export function parseOptions(args: string[], spec: OptionSpec): ParsedOptions {
  const out: ParsedOptions = { operands: [], options: [], unknown: [], denied: [], ask: [] };
  const flags = new Set(spec.flags ?? []);
  const valued = new Set(spec.valued ?? []);
  const note = (name: string) => {
    if (spec.denied && Object.hasOwn(spec.denied, name)) out.denied.push(`${name}: ${spec.denied[name]}`);
    else if (spec.ask && Object.hasOwn(spec.ask, name)) out.ask.push(`${name}: ${spec.ask[name]}`);
    else return false;
    return true;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') { out.operands.push(...args.slice(i + 1)); break; }
    if (arg.startsWith('--')) {
      const [name, inline] = splitOnce(arg, '=');
      if (note(name)) continue;
      if (valued.has(name)) out.options.push({ name, value: inline ?? args[++i] });
      else if (flags.has(name) && inline === undefined) out.options.push({ name });
      else out.unknown.push(name);
      continue;
    }
    if (arg.startsWith('-') && arg.length > 1) {
      if (spec.numericShorthand && /^-\d+$/.test(arg)) { out.options.push({ name: '-n', value: arg.slice(1) }); continue; }
      i = shortCluster(arg, args, i, { flags, valued, note, out });
      continue;
    }
    out.operands.push(arg);
  }
  return out;
}

interface ClusterCtx {
  flags: Set<string>;
  valued: Set<string>;
  note: (name: string) => boolean;
  out: ParsedOptions;
}

/** "-ivn5": flags until a valued letter, which takes the rest (or the next word). Returns the index consumed. */
function shortCluster(arg: string, args: string[], i: number, c: ClusterCtx): number {
  for (let j = 1; j < arg.length; j++) {
    const letter = arg[j]!;
    const name = `-${letter}`;
    if (c.note(name)) continue;
    if (c.valued.has(letter)) {
      const rest = arg.slice(j + 1);
      c.out.options.push({ name, value: rest || args[++i] });
      return i;
    }
    if (c.flags.has(letter)) c.out.options.push({ name });
    else c.out.unknown.push(name);
  }
  return i;
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const at = s.indexOf(sep);
  return at < 0 ? [s, undefined] : [s.slice(0, at), s.slice(at + 1)];
}
