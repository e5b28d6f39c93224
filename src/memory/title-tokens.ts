/**
 * The words of a title that say what happened, for comparing titles: camelCase split
 * ("KubePodCrashLooping" → kube pod crash looping), lower-cased, crude suffixes stripped, and
 * without stop words, identifiers (pod hashes, addresses, ids: any word mixing digits and letters)
 * or measurements (numbers other than three or four digits, which are kept: HTTP codes, ports), which
 * differ between repeats of the same problem.
 */
const STOP_WORDS = new Set(
  [
    'a an and are as at be by for from has have in is it its of on or the to was were will with',
    'this that than then there not no into over under after before when while out',
  ]
    .join(' ')
    .split(' '),
);

/** At most this many distinct words of one title are kept. */
export const MAX_TITLE_TOKENS = 24;

export function titleTokens(title: string): string[] {
  const words = title
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  const out = new Set<string>();
  for (const word of words) {
    if (out.size >= MAX_TITLE_TOKENS) break;
    if (!keep(word)) continue;
    out.add(stem(word));
  }
  return [...out];
}

function keep(word: string): boolean {
  if (word.length < 2 || STOP_WORDS.has(word)) return false;
  if (/^[0-9]+$/.test(word)) return word.length === 3 || word.length === 4;
  return !/[0-9]/.test(word);
}

/** A crude stemmer: enough that "errors"/"error", "processes"/"process" and "failing"/"failed"/"fails" meet. */
function stem(word: string): string {
  if (word.length <= 4) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ss')) return word;
  for (const suffix of ['ing', 'ed', 's']) {
    if (word.endsWith(suffix) && word.length - suffix.length >= 3) return word.slice(0, -suffix.length);
  }
  return word;
}

/** The Dice coefficient of two token lists: 2·|A∩B| / (|A|+|B|), 0 when either is empty. */
export function tokenOverlap(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return 0;
  const set = new Set(a);
  let shared = 0;
  for (const t of new Set(b)) if (set.has(t)) shared += 1;
  return (2 * shared) / (set.size + new Set(b).size);
}
