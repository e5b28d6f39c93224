import type { CallVerdict } from '../../src/tools/types.js';
import { parseOptions } from './options.js';
import { allow, checkOptions, deny } from './verdicts.js';

/** jq's program may read the environment (env, $ENV: Lestrade's secrets) or load modules from disk. */
export function checkJq(args: string[]): CallVerdict {
  const rest: string[] = [];
  // --arg/--argjson take two words: a name and a value.
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--arg' || args[i] === '--argjson') { i += 2; continue; }
    rest.push(args[i]!);
  }
  const p = parseOptions(rest, {
    flags: ['r', 'c', 'S', 'e', 's', 'n', 'j', 'a', 'C', 'M', '--raw-output', '--compact-output', '--sort-keys', '--slurp', '--null-input', '--join-output', '--exit-status', '--tab'],
    valued: ['--indent'],
    ask: { '-f': 'reads its program from a file', '--from-file': 'reads its program from a file', '-L': 'loads modules from a folder', '--rawfile': 'reads a file', '--slurpfile': 'reads a file' },
  });
  const program = p.operands[0] ?? '';
  const code = program.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  if (/\$ENV\b|\benv\b|\$__loc__|\binput_filename\b/.test(code)) return deny('jq env/$ENV reads the environment');
  if (/\b(import|include|modulemeta|get_search_list)\b/.test(code)) return deny('jq modules are loaded from disk');
  return p.operands.length === 0 && p.ask.length === 0 ? allow : checkOptions('jq', { ...p, operands: p.operands.slice(1) }, 0);
}
