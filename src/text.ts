const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const native = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;

/**
 * False when the string holds a lone UTF-16 surrogate, which has no UTF-8 form: String#isWellFormed
 * (Node 20 has it; ES2022's typings do not), else a regular expression (far slower on long text).
 */
export const isWellFormed: (s: string) => boolean = native ? (s) => native.call(s) : (s) => !LONE_SURROGATE.test(s);
