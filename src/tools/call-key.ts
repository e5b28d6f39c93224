/** Same tool with the same arguments in any key order gives the same key. */
export function callKey(name: string, rawArguments: string): string {
  try {
    return `${name}(${canonical(JSON.parse(rawArguments || '{}'))})`;
  } catch {
    return `${name}(${rawArguments})`;
  }
}

/** The key of a call from its validated parameters (what a runner sees). */
export function paramsKey(name: string, params: Record<string, unknown>): string {
  return `${name}(${canonical(params)})`;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
