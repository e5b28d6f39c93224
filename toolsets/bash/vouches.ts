import { basename } from 'node:path';

/** Programs whose output is read from an outside system (the cluster, an allowed HTTP host). */
const READERS = new Set(['kubectl', 'curl']);
/** Programs that only keep, drop, reorder or count lines and fields of their input: they add no text of their own. */
const FILTERS = new Set(['grep', 'egrep', 'fgrep', 'head', 'tail', 'sort', 'uniq', 'wc', 'cut']);

/**
 * Whether a pipeline's output vouches for the hosts it names (so the RCA may link to them): it starts with a
 * program that reads an outside system and every later stage only filters. `echo …`, `jq -n …`, `printf`, and
 * awk, jq, tr or sed after kubectl (which can build any text from the model's program) never do.
 */
export function pipelineVouches(stages: readonly (readonly string[])[]): boolean {
  const [first, ...rest] = stages.map((argv) => basename(argv[0] ?? ''));
  return first !== undefined && READERS.has(first) && rest.every((p) => FILTERS.has(p));
}
