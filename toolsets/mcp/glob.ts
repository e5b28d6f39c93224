/** A glob over a tool name: `*` any run of characters, `?` one; everything else literal. */
export function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

export function matchesAny(name: string, globs: readonly string[]): boolean {
  return globs.some((g) => globToRegExp(g).test(name));
}
