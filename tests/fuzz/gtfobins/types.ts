/**
 * The GTFOBins-derived corpus of the bash policy's property suite (tests/fuzz/bash-policy.test.ts).
 * GTFOBins (gtfobins.github.io) lists, per Unix program, how it can be made to run a shell, read or
 * write files, reach the network, load a library or read the environment. These entries were written
 * from those lists (and from the programs' manuals) for every program the bash toolset runs without
 * asking (toolsets/bash/policy.ts), plus the cases of issue 16. Every entry must be refused or need a
 * human, in every disguise the suite gives it.
 */
export type Category =
  | 'shell'
  | 'command'
  | 'reverse-shell'
  | 'file-read'
  | 'file-write'
  | 'file-upload'
  | 'file-download'
  | 'library-load'
  | 'env-read'
  | 'credentials'
  | 'network';

export interface GtfoEntry {
  category: Category;
  /** The command line as the model would write it (shell syntax, single quotes where GTFOBins has them). */
  line: string;
  /** Other names the same line works under (gawk, mawk for awk; egrep for grep). */
  names?: string[];
  /** Where this entry comes from, when not GTFOBins itself ("issue 16 defect 1", "gawk manual"). */
  source?: string;
}

/** What the disguises need to know of a program's options to rewrite them without changing what runs. */
export interface ProgramShape {
  program: string;
  /** Short options that take a value (-n 5 / -n5). */
  shortValued: string[];
  /** Long options that take a required value (--lines 5 / --lines=5). */
  longValued: string[];
  /** Short and long spellings of the same option. */
  aliases: Array<[string, string]>;
  /** Whether "--" may stand before the first operand without changing the meaning. */
  dashDash: boolean;
  /** Options that may be added without making the line harmless (a namespace, a separator). */
  benign: string[][];
}
