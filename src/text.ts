const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** False when the string holds a lone UTF-16 surrogate, which has no UTF-8 form (String#isWellFormed, for ES2022). */
export function isWellFormed(s: string): boolean {
  return !LONE_SURROGATE.test(s);
}
