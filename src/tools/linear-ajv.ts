import { Ajv, type Options } from 'ajv';
import { RE2JS } from 're2js';

/**
 * ajv's regular-expression engine for schemas written by others (an MCP server's `pattern`,
 * `patternProperties`): RE2 (re2js, pure JavaScript), which matches in time linear in the input, so a
 * pattern like `^(a+)+$` cannot stall the event loop. Patterns RE2 cannot run (backreferences,
 * lookarounds) throw when the schema compiles: that schema is unusable, not slow.
 */
function re2RegExp(pattern: string): { test: (s: string) => boolean; toString: () => string } {
  const re = RE2JS.compile(RE2JS.translateRegExp(pattern));
  // ajv keeps one compiled pattern per `toString()`: it must differ for each pattern.
  return { test: (s) => re.test(s), toString: () => `re2:${pattern}` };
}
// ajv reads `code` only when it generates standalone code, which Lestrade never does.
const regExp = Object.assign(re2RegExp, { code: 're2js' });

/**
 * An ajv for third-party schemas. strict: false — they carry keywords ajv does not know (title,
 * examples, x-*). validateFormats: false — a format we cannot check is not a reason to refuse a call,
 * and ajv-formats' own expressions would run on third-party text.
 */
export function linearAjv(opts: Options = {}): Ajv {
  return new Ajv({ strict: false, allErrors: true, validateFormats: false, ...opts, code: { regExp } });
}
