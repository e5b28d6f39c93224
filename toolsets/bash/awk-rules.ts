import type { CallVerdict } from '../../src/tools/types.js';
import { lexAwk, type AwkToken } from './awk-program.js';
import { parseOptions, type OptionSpec } from './options.js';
import { checkOptions, deny } from './verdicts.js';

/**
 * Names that reach outside the input awk is given: the command line and its file list (ARGV, ARGC,
 * which a program can extend to read any file), the environment (ENVIRON), the process (PROCINFO),
 * gawk's symbol tables (SYMTAB, FUNCTAB: indirect access to all of these), and the builtins that
 * run commands, read files or act on them.
 */
const REFUSED_NAMES: Record<string, string> = {
  ARGV: 'ARGV names the files awk reads: a program can add any file to it',
  ARGC: 'ARGC counts the files awk reads: a program can add any file with it',
  ENVIRON: 'ENVIRON reads the environment',
  PROCINFO: 'PROCINFO reads the process (gawk)',
  SYMTAB: 'SYMTAB reaches every variable by name (gawk)',
  FUNCTAB: 'FUNCTAB reaches every function by name (gawk)',
  system: 'system() runs commands',
  getline: 'getline reads files or command output',
  close: 'close() acts on files or commands',
  fflush: 'fflush() acts on files or commands',
};

const LOADS = 'loads a shared library (runs code)';
const AT = 'awk @ constructs (@load, @include, @f()) load code or call any function (gawk)';
const WRITES = 'writes a file';
const FROM_FILE = 'reads its program from a file';

/** awk's options: -F and -v run; programs from files or options are for a human; libraries and dumps never. */
const SPEC: OptionSpec = {
  flags: [],
  valued: [
    'F',
    'v',
    'f',
    'i',
    'l',
    'E',
    'e',
    'W',
    '--field-separator',
    '--assign',
    '--file',
    '--include',
    '--load',
    '--exec',
    '--source',
  ],
  denied: {
    '-l': LOADS,
    '--load': LOADS,
    '-d': WRITES,
    '--dump-variables': WRITES,
    '-p': WRITES,
    '--profile': WRITES,
    '-o': WRITES,
    '--pretty-print': WRITES,
    '-D': 'starts the debugger',
    '--debug': 'starts the debugger',
  },
  ask: {
    '-f': FROM_FILE,
    '--file': FROM_FILE,
    '-E': FROM_FILE,
    '--exec': FROM_FILE,
    '-i': 'includes a source file',
    '--include': 'includes a source file',
    '-e': 'program text given in an option',
    '--source': 'program text given in an option',
    '-W': 'implementation options (mawk -W exec reads a file)',
  },
  stopAtOperand: true,
};

/**
 * awk (gawk, mawk): the program is lexed, not matched with patterns, and refused when it names
 * anything that reaches past its input (see REFUSED_NAMES), pipes (|, |&), redirects print output
 * (>, >>), or uses gawk's @ constructs (@load, @include, @namespace, @f() indirect calls). File
 * arguments need a human, like every other program's.
 */
export function checkAwk(args: string[]): CallVerdict {
  const p = parseOptions(args, SPEC);
  for (const o of p.options) {
    if (o.name === '-v' || o.name === '--assign') {
      const name = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(o.value ?? '')?.[1];
      if (name === undefined) return deny(`awk -v ${JSON.stringify(o.value ?? '')} is not a name=value assignment`);
      if (Object.hasOwn(REFUSED_NAMES, name)) return deny(`awk -v ${name}: ${REFUSED_NAMES[name]}`);
    }
  }
  const programGiven = p.ask.length > 0 || p.denied.length > 0;
  const [program, ...files] = p.operands;
  if (program === undefined && !programGiven) return deny('awk needs a program');
  if (program !== undefined && !programGiven) {
    const refused = checkAwkProgram(program);
    if (refused) return deny(refused);
  }
  return checkOptions('awk', { ...p, operands: programGiven ? p.operands : files }, 0);
}

/** Why the program text is refused, or null. */
export function checkAwkProgram(program: string): string | null {
  const raw = rawCheck(program);
  if (raw) return raw;
  const lexed = lexAwk(program);
  if (!lexed.ok) return `awk: ${lexed.reason}`;
  return tokenCheck(lexed.tokens);
}

/**
 * A second look at the whole text, literals included, for the names above and gawk's network
 * files: should the lexer and an awk ever disagree on where a literal ends, nothing hides there.
 */
function rawCheck(program: string): string | null {
  const name =
    /\b(ARGV|ARGC|ENVIRON|PROCINFO|SYMTAB|FUNCTAB|getline)\b/.exec(program)?.[1] ??
    /\b(system|close|fflush)\s*\(/.exec(program)?.[1];
  if (name) return `awk ${REFUSED_NAMES[name]}`;
  if (/@\s*([A-Za-z_]\w*\s*\(|load\b|include\b|namespace\b)/.test(program)) return AT;
  if (/\/inet[46]?\//.test(program)) return 'awk /inet files open network connections (gawk)';
  if (program.includes('|&')) return 'awk pipes (|) run commands (so does |&)';
  return null;
}

const PRINT_TO_FILE = 'awk print > writes files (so does >>)';

function tokenCheck(tokens: AwkToken[]): string | null {
  let depth = 0;
  let printDepth = -1;
  for (const t of tokens) {
    if (t.kind === 'word' && Object.hasOwn(REFUSED_NAMES, t.text)) return `awk ${REFUSED_NAMES[t.text]}`;
    if (t.kind === 'word' && (t.text === 'print' || t.text === 'printf')) printDepth = depth;
    if (t.kind !== 'op') continue;
    if (t.text === '@') return AT;
    if (t.text === '|' || t.text === '|&') return 'awk pipes (|) run commands (so does |&)';
    if (t.text === '(') depth++;
    else if (t.text === ')') depth--;
    else if (t.text === ';' || t.text === '{' || t.text === '}') printDepth = -1;
    else if ((t.text === '>' || t.text === '>>') && depth === printDepth) return PRINT_TO_FILE;
  }
  return null;
}
