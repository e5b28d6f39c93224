import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ESLint, type Linter } from 'eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// eslint.config.js, applied to small files. They sit in a folder of the repository (so the config's file
// patterns see them as production code) with a tsconfig.json of their own: the project service type-checks
// them in a program of a few files, not the repository's.
const ROOT = resolve(import.meta.dirname, '../..');
let dir: string;
let eslint: ESLint;
const messages = new Map<string, Linter.LintMessage[]>();

const lines = (n: number, line: string): string => Array.from({ length: n }, () => line).join('\n');
/** A function of exactly `total` counted lines (header and closing brace included). */
const functionOf = (total: number, extra = ''): string =>
  `export function long(): number {\n  let n = 0;\n${extra}${lines(total - 4, '  n += 1;')}\n  return n;\n}\n`;

const FILES: Record<string, string> = {
  'nested-ternary.ts': `export const f = (a: number): string => (a > 1 ? 'x' : a > 0 ? 'y' : 'z');\n`,
  'flat-ternary.ts': `export const f = (a: number): string => (a > 1 ? 'x' : 'y');\n`,
  'function-61.ts': functionOf(61),
  // 60 counted lines, plus blank and comment lines, which do not count.
  'function-60.ts': functionOf(60, `${lines(5, '')}\n${lines(5, '  // a comment')}\n`),
  'floating.ts': `async function work(): Promise<void> {}\nexport function go(): void {\n  work();\n}\n`,
  'voided.ts': `async function work(): Promise<void> {}\nexport function go(): void {\n  // fire and forget: the worker reports its own failures\n  void work();\n}\n`,
  'silent-catch.ts': `export async function g(p: Promise<void>): Promise<void> {\n  await p.catch(() => undefined);\n}\n`,
  'explained-catch.ts': `export async function g(p: Promise<void>): Promise<void> {\n  // the lock expires by itself\n  await p.catch(() => undefined);\n}\n`,
  'unsafe.ts': `export const x: number = JSON.parse('1');\n`,
};

beforeAll(async () => {
  dir = mkdtempSync(join(ROOT, 'lint-probe-'));
  mkdirSync(dir, { recursive: true });
  const tsconfig = {
    compilerOptions: {
      strict: true,
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      types: [],
      noEmit: true,
      skipLibCheck: true,
    },
    include: ['*.ts'],
  };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  for (const [name, text] of Object.entries(FILES)) writeFileSync(join(dir, name), text);
  eslint = new ESLint({ cwd: ROOT, overrideConfigFile: join(ROOT, 'eslint.config.js') });
  for (const r of await eslint.lintFiles(Object.keys(FILES).map((f) => join(dir, f)))) {
    messages.set(r.filePath.slice(dir.length + 1), r.messages);
  }
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The rules that reported in a file (a parse or config failure shows up as a null rule id, and fails the test). */
const rulesIn = (file: string): Array<string | null> => (messages.get(file) ?? []).map((m) => m.ruleId);

describe('eslint.config.js', () => {
  it('forbids nested ternaries, and only those', () => {
    expect(rulesIn('nested-ternary.ts')).toEqual(['no-nested-ternary']);
    expect(rulesIn('flat-ternary.ts')).toEqual([]);
  });

  it('forbids a function of 61 lines and allows one of 60, blank lines and comments not counted', () => {
    expect(rulesIn('function-61.ts')).toEqual(['max-lines-per-function']);
    expect(rulesIn('function-60.ts')).toEqual([]);
  });

  it('forbids a floating promise, and accepts one explicitly voided', () => {
    expect(rulesIn('floating.ts')).toEqual(['@typescript-eslint/no-floating-promises']);
    expect(rulesIn('voided.ts')).toEqual([]);
  });

  it('forbids a catch that drops the error unless a comment says why', () => {
    expect(rulesIn('silent-catch.ts')).toEqual(['local/no-silent-catch']);
    expect(rulesIn('explained-catch.ts')).toEqual([]);
  });

  it("applies typescript-eslint's type-checked rules to production code", () => {
    expect(rulesIn('unsafe.ts')).toEqual(['@typescript-eslint/no-unsafe-assignment']);
  });

  it('exempts tests and benchmarks from the function length, and tests from the no-unsafe-* rules', async () => {
    const severity = (config: Linter.Config, rule: string): unknown => {
      const setting = config.rules?.[rule];
      return Array.isArray(setting) ? setting[0] : setting;
    };
    const test = (await eslint.calculateConfigForFile(join(ROOT, 'tests/unit/example.test.ts'))) as Linter.Config;
    const bench = (await eslint.calculateConfigForFile(join(ROOT, 'bench/example.ts'))) as Linter.Config;
    const src = (await eslint.calculateConfigForFile(join(ROOT, 'src/example.ts'))) as Linter.Config;
    expect([severity(test, 'max-lines-per-function'), severity(bench, 'max-lines-per-function')]).toEqual([0, 0]);
    expect(severity(src, 'max-lines-per-function')).toBe(2);
    expect(severity(test, '@typescript-eslint/no-unsafe-assignment')).toBe(0);
    expect(severity(src, '@typescript-eslint/no-unsafe-assignment')).toBe(2);
    expect(severity(test, 'no-nested-ternary')).toBe(2);
  });
});
