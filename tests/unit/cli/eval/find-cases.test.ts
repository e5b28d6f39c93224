import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCases } from '../../../../cli/eval/eval-case.js';
import { BUILTIN_ALIASES_FILE, loadAliases } from '../../../../cli/eval/tool-aliases.js';

// Issue 36: a folder with no case used to report "0/0, 100%" and exit 0; a build without the built-in aliases
// loaded none and said nothing.

describe('findCases', () => {
  it('refuses a folder with no test_case.yaml in it or in its folders, naming it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'no-cases-'));
    mkdirSync(join(dir, 'not-a-case'));
    writeFileSync(join(dir, 'not-a-case', 'README.md'), 'x');
    expect(() => findCases([dir])).toThrow(
      `eval: ${dir} has no test_case.yaml, nor any folder with one: no case to run`,
    );
  });

  it('still refuses a path that is not a folder', () => {
    expect(() => findCases(['/nonexistent/evals'])).toThrow('is not a folder of cases');
  });
});

describe('loadAliases', () => {
  it('loads the built-in aliases (HolmesGPT names onto ours)', () => {
    const aliases = loadAliases([]);
    expect(aliases.size).toBeGreaterThan(10);
    expect(aliases.get('kubectl_get_by_name')?.tool).toBeTruthy();
  });

  it('stops when the built-in file is missing, saying how to get it back', () => {
    expect(() => loadAliases([], join(tmpdir(), 'missing', 'tool-aliases.yaml'))).toThrow(
      /tool-aliases\.yaml is missing: .*npm run build copies them into dist\/.*reinstall or rebuild Lestrade/,
    );
    expect(BUILTIN_ALIASES_FILE.endsWith('cli/eval/tool-aliases.yaml')).toBe(true);
  });
});
