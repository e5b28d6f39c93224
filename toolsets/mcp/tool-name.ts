import { createHash } from 'node:crypto';

/** OpenAI-compatible function names: letters, digits, `_` and `-`, at most 64 characters. */
const MAX = 64;

/**
 * The name the model sees for a server's tool: `<server>_<tool>`. A tool name that had to change (other
 * characters made `_`) or is too long (cut) ends with a short hash of the original, so `x.y` and `x_y`
 * stay two names; offeredTools drops any twins left.
 */
export function prefixedToolName(server: string, tool: string): string {
  const whole = `${server}_${tool}`;
  const name = whole.replace(/[^A-Za-z0-9_-]/g, '_');
  if (name === whole && name.length <= MAX) return name;
  const hash = createHash('sha256').update(whole).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX - 9)}_${hash}`;
}
