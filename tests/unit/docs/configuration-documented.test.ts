import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sources } from '../../../sources/index.js';
import { destinations } from '../../../destinations/index.js';
import { toolsets } from '../../../toolsets/index.js';
import { buildConfigSchema } from '../../../src/config/schema.js';
import { configKeyPaths, envVarsIn, envVarsReadIn, undocumented } from '../../helpers/config-docs.js';

const ROOT = join(import.meta.dirname, '../../..');
const DOC = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8');
const CODE_FOLDERS = ['src', 'sources', 'destinations', 'toolsets', 'cli', 'bin'];

const keys = configKeyPaths(buildConfigSchema(sources, destinations, toolsets));
const envVars = envVarsReadIn(ROOT, CODE_FOLDERS);

describe('docs/configuration.md', () => {
  it('documents every config key of the assembled schema', () => {
    expect(keys.length).toBeGreaterThan(100);
    expect(undocumented(keys, DOC)).toEqual([]);
  });

  it('documents every environment variable the code reads', () => {
    expect(undocumented(envVars, DOC)).toEqual([]);
  });

  it('finds every variable a source registers, and the core table, by reading the code', () => {
    const registered = sources.flatMap((s) => s.env.map(([name]) => name));
    expect(registered.length).toBeGreaterThan(20);
    expect(envVars).toEqual(expect.arrayContaining([...registered, 'OPENAI_API_KEY', 'LOG_LEVEL', 'LESTRADE_CONFIG']));
  });

  it('names a key or a variable that the doc leaves out', () => {
    const withoutTemperature = DOC.replaceAll('`llm.temperature`', 'llm temperature');
    expect(undocumented(keys, withoutTemperature)).toEqual(['llm.temperature']);
    const withoutPat = DOC.replaceAll('`JIRA_PAT`', 'JIRA PAT');
    expect(undocumented(envVars, withoutPat)).toEqual(['JIRA_PAT']);
    const withoutSourceKey = DOC.replaceAll('`sources.github.poll[].everySeconds`', '');
    expect(undocumented(keys, withoutSourceKey)).toEqual(['sources.github.poll[].everySeconds']);
  });
});

describe('configKeyPaths', () => {
  it('walks objects, wrappers, arrays and records of objects, and unions', () => {
    const schema = z.strictObject({
      a: z.strictObject({ b: z.int().default(1), c: z.string().optional() }).prefault({}),
      list: z.array(z.strictObject({ x: z.string() })).default([]),
      tags: z.array(z.string()),
      map: z.record(z.string(), z.strictObject({ on: z.boolean() })),
      plain: z.record(z.string(), z.number()),
      either: z.union([z.boolean(), z.strictObject({ deep: z.string() })]),
    });
    expect(configKeyPaths(schema)).toEqual([
      'a',
      'a.b',
      'a.c',
      'list',
      'list[].x',
      'tags',
      'map',
      'map.*.on',
      'plain',
      'either',
      'either.deep',
    ]);
  });
});

describe('envVarsIn', () => {
  it('reads env bindings, env.NAME and env[NAME], and nothing else', () => {
    const text = [
      "const ENV = [['PORT', ['server', 'port'], 'int'], ['X_Y', ['a'], 'string']];",
      'const a = process.env.FROM_PROCESS; const b = env.FROM_ENV; const c = env["QUOTED"];',
      "const d = somethingelse.NOT_ENV; const e = ['lower', ['x']]; const f = environment.NOPE;",
    ].join('\n');
    expect(envVarsIn(text).sort()).toEqual(['FROM_ENV', 'FROM_PROCESS', 'PORT', 'QUOTED', 'X_Y']);
  });
});

describe('undocumented', () => {
  it('counts a name only when the doc names it whole, in backticks', () => {
    expect(undocumented(['a.b', 'A_B'], 'a.b and A_B in prose, `a.b.c`, `A_B_C`')).toEqual(['a.b', 'A_B']);
    expect(undocumented(['a.b', 'A_B'], 'see `a.b` and `A_B`')).toEqual([]);
  });
});
