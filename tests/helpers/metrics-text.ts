/**
 * The value of one sample in Prometheus exposition text: the series named `name` whose labels
 * include every pair of `labels`; null when there is none. Throws when several match.
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  const found = text.split('\n').filter((line) => {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)$/.exec(line);
    if (!m || m[1] !== name) return false;
    return Object.entries(labels).every(([k, v]) => (m[2] ?? '').includes(`${k}="${v}"`));
  });
  if (found.length > 1)
    throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}: ${found.join('; ')}`);
  return found[0] ? Number(found[0].split(/\s+/).at(-1)) : null;
}
