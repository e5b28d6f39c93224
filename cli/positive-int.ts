import { InvalidArgumentError } from 'commander';

/** commander's parser for a count: a whole number of at least 1, else the option's error names what was expected. */
export function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}
