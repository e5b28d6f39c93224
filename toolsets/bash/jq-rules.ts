import type { CallVerdict } from '../../src/tools/types.js';
import { jqCode } from './jq-program.js';
import { parseOptions } from './options.js';
import { allow, checkOptions, deny } from './verdicts.js';

const ENVIRONMENT = 'reads the environment';
const MODULES = 'loads modules from disk';
const FROM_FILE = 'reads its program from a file';
const MODULE_DIR = 'loads modules from a folder';

/** jq builtins that reach past the input: the environment, file names, the module search path. */
const REFUSED_CALLS: Record<string, string> = {
  env: ENVIRONMENT,
  input_filename: 'input_filename names the files jq reads',
  import: MODULES,
  include: MODULES,
  modulemeta: MODULES,
  get_search_list: MODULES,
  get_jq_origin: 'reveals paths on the Lestrade host',
  get_prog_origin: 'reveals paths on the Lestrade host',
};

/** Options taking two words: a name and a value (or a file). */
const TWO_WORDS: Record<string, string | null> = {
  '--arg': null,
  '--argjson': null,
  '--slurpfile': 'reads a file',
  '--rawfile': 'reads a file',
};

/** jq: the program is read as code (interpolations included); files and modules are for a human. */
export function checkJq(args: string[]): CallVerdict {
  const rest: string[] = [];
  const fileOptions: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (Object.hasOwn(TWO_WORDS, a)) {
      if (TWO_WORDS[a]) fileOptions.push(a);
      i += 2;
      continue;
    }
    rest.push(a);
  }
  const p = parseOptions(rest, {
    flags: [
      'r',
      'c',
      'S',
      'e',
      's',
      'n',
      'j',
      'a',
      'C',
      'M',
      'R',
      '--raw-output',
      '--compact-output',
      '--sort-keys',
      '--slurp',
      '--null-input',
      '--join-output',
      '--exit-status',
      '--tab',
      '--raw-input',
      '--ascii-output',
      '--color-output',
      '--monochrome-output',
      '--stream',
      '--seq',
    ],
    valued: ['--indent', 'f', 'L', '--from-file', '--library-path'],
    ask: { '-f': FROM_FILE, '--from-file': FROM_FILE, '-L': MODULE_DIR, '--library-path': MODULE_DIR },
  });
  const programFromFile = p.ask.some((a) => a.startsWith('-f') || a.startsWith('--from-file'));
  if (!programFromFile && p.operands[0] !== undefined) {
    const refused = checkJqProgram(p.operands[0]);
    if (refused) return deny(refused);
  }
  if (fileOptions.length) p.ask.push(`${fileOptions[0]}: reads a file`);
  if (p.operands.length === 0 && p.ask.length === 0 && p.unknown.length === 0) return allow;
  return checkOptions('jq', { ...p, operands: programFromFile ? p.operands : p.operands.slice(1) }, 0);
}

/** Why the program is refused, or null. */
export function checkJqProgram(program: string): string | null {
  const code = jqCode(program);
  if (code === null) return 'jq program with an unterminated string or interpolation';
  const special = /\$\s*(ENV|__\w+)\b/.exec(code);
  if (special) return special[1] === 'ENV' ? `jq $ENV ${ENVIRONMENT}` : `jq $${special[1]} is not allowed`;
  for (const m of code.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
    const word = m[0];
    if (!Object.hasOwn(REFUSED_CALLS, word)) continue;
    if (isFieldOrKey(code, m.index, word.length)) continue;
    return `jq ${word} ${REFUSED_CALLS[word]}`;
  }
  return null;
}

/**
 * ".env" (a field), "$env" (a variable of the program's own), "{env: ...}" and "{env}" (an object's
 * key, the second meaning .env) name no builtin; anything else is a call.
 */
function isFieldOrKey(code: string, at: number, length: number): boolean {
  const before = code.slice(0, at);
  if (/[.$]$/.test(before) || /[A-Za-z0-9_]$/.test(before)) return true;
  if (/\$\s+$/.test(before)) return true;
  const after = code.slice(at + length);
  if (!/^\s*[:,}]/.test(after) || !/[{,]\s*$/.test(before)) return false;
  return innermostOpen(before) === '{';
}

function innermostOpen(text: string): string | undefined {
  const stack: string[] = [];
  for (const c of text) {
    if (c === '(' || c === '[' || c === '{') stack.push(c);
    else if (c === ')' || c === ']' || c === '}') stack.pop();
  }
  return stack.at(-1);
}
