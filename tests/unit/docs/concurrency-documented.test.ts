import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { DEFAULT_CONCURRENCY } from '../../../src/config/schema.js';
import { sources } from '../../../sources/index.js';

const ROOT = join(import.meta.dirname, '../../..');
const doc = (name: string) => readFileSync(join(ROOT, 'docs', name), 'utf8');

/** Issue 21: the concurrency default is chosen from the memory an investigation in flight takes, and says so. */
describe('the concurrency default, documented', () => {
  it('is what an empty configuration gets', () => {
    expect(loadConfig({}, undefined, sources).queue.concurrency).toBe(DEFAULT_CONCURRENCY);
  });

  it('is the number the configuration reference and the rate-limits page give', () => {
    const n = String(DEFAULT_CONCURRENCY);
    expect(doc('configuration.md')).toContain(`| \`queue.concurrency\` | ${n} |`);
    expect(doc('configuration.md')).toContain(
      `| \`LESTRADE_CONCURRENCY\` | \`queue.concurrency\` | ${n} investigations`,
    );
    expect(doc('configuration.md')).toContain(`queue: { concurrency: ${n},`);
    expect(doc('rate-limits.md')).toContain(
      `(env \`LESTRADE_CONCURRENCY\`) is ${n} investigations at once per process`,
    );
  });

  it('comes with the memory it takes: RSS measured at that many in flight, and the worst case named', () => {
    const section = doc('rate-limits.md').split('## Concurrency')[1]!.split('\n## ')[0]!;
    expect(section).toMatch(new RegExp(`\\n\\| ${DEFAULT_CONCURRENCY} \\| [\\d–]+ MB \\| [\\d–]+ MB \\|`));
    expect(section).toContain('512 MB');
  });
});
