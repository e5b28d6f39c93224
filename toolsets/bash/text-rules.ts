import type { CallVerdict } from '../../src/tools/types.js';
import { parseOptions, type OptionSpec } from './options.js';
import { checkOptions, deny, optionsRule } from './verdicts.js';

const FILES = 'reads files on the Lestrade host';

const GREP: OptionSpec = {
  flags: [
    'i',
    'v',
    'c',
    'n',
    'E',
    'F',
    'w',
    'x',
    'o',
    'h',
    'H',
    'l',
    'L',
    's',
    'q',
    '--ignore-case',
    '--invert-match',
    '--count',
    '--line-number',
    '--extended-regexp',
    '--fixed-strings',
    '--word-regexp',
    '--line-regexp',
    '--only-matching',
    '--no-filename',
    '--with-filename',
    '--color',
    '--quiet',
  ],
  valued: ['e', 'A', 'B', 'C', 'm', '--regexp', '--after-context', '--before-context', '--context', '--max-count'],
  ask: {
    '-f': 'reads patterns from a file',
    '--file': 'reads patterns from a file',
    '-r': FILES,
    '-R': FILES,
    '--recursive': FILES,
  },
};

const HEAD: OptionSpec = {
  flags: ['q', 'v', '--quiet', '--verbose'],
  valued: ['n', 'c', '--lines', '--bytes'],
  numericShorthand: true,
};

const TAIL: OptionSpec = {
  ...HEAD,
  denied: { '-f': 'follows and never ends', '-F': 'follows and never ends', '--follow': 'follows and never ends' },
};

function grep(name: string) {
  return (args: string[]): CallVerdict => {
    const p = parseOptions(args, GREP);
    const patternGiven = p.options.some((o) => o.name === '-e' || o.name === '--regexp');
    return checkOptions(name, p, patternGiven ? 0 : 1, FILES);
  };
}

const UNIQ: OptionSpec = {
  flags: ['c', 'd', 'u', 'i', '--count', '--repeated', '--unique', '--ignore-case'],
  valued: ['f', 's', 'w'],
};

/** uniq IN OUT writes OUT. */
function uniq(args: string[]): CallVerdict {
  const p = parseOptions(args, UNIQ);
  if (p.operands.length > 1) return deny(`uniq writes its second argument (${JSON.stringify(p.operands[1])})`);
  return checkOptions('uniq', p, 0);
}

/** Filters that read standard input: allowed, as long as they read no files and write none. */
export const TEXT_RULES: Record<string, (args: string[]) => CallVerdict> = {
  grep: grep('grep'),
  egrep: grep('egrep'),
  fgrep: grep('fgrep'),
  head: optionsRule('head', HEAD, 0),
  tail: optionsRule('tail', TAIL, 0),
  sort: optionsRule(
    'sort',
    {
      flags: [
        'n',
        'r',
        'u',
        'h',
        'V',
        'f',
        'b',
        'g',
        'M',
        's',
        '--numeric-sort',
        '--reverse',
        '--unique',
        '--human-numeric-sort',
        '--version-sort',
        '--ignore-case',
        '--stable',
      ],
      valued: [
        'k',
        't',
        'T',
        '--key',
        '--field-separator',
        '--files0-from',
        '--random-source',
        '--temporary-directory',
        '--compress-program',
      ],
      denied: { '-o': 'writes a file', '--output': 'writes a file', '--compress-program': 'runs a program' },
      ask: {
        '--files0-from': FILES,
        '--random-source': FILES,
        '-T': 'writes temporary files there',
        '--temporary-directory': 'writes temporary files there',
      },
    },
    0,
  ),
  uniq: uniq,
  wc: optionsRule(
    'wc',
    {
      flags: ['l', 'w', 'c', 'm', 'L', '--lines', '--words', '--bytes', '--chars'],
      valued: ['--files0-from'],
      ask: { '--files0-from': FILES },
    },
    0,
  ),
  cut: optionsRule(
    'cut',
    {
      flags: ['s', '--complement', '--only-delimited'],
      valued: ['d', 'f', 'c', 'b', '--delimiter', '--fields', '--characters', '--bytes'],
    },
    0,
  ),
  tr: optionsRule('tr', { flags: ['d', 's', 'c', 'C', '--delete', '--squeeze-repeats', '--complement'] }, 2),
};
