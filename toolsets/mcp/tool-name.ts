import { createHash } from 'node:crypto';

/** OpenAI-compatible function names: letters, digits, `_` and `-`, at most 64 characters. */
const MAX = 64;

/**
 * The name the model sees for a server's tool: `<server>_<tool>`, other characters made `_`; a name
 * too long is cut and ends with a short hash of the whole, so two long names stay distinct.
 */
export function prefixedToolName(server: string, tool: string): string {
  const name = `${server}_${tool}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (name.length <= MAX) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX - 9)}_${hash}`;
}
