import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The rule file (.dependency-cruiser.cjs) run by the real depcruise CLI on a tiny tree that breaks
 * each rule once, beside imports that keep to them: a rule that stopped matching (a typo in a
 * folder name, a layer map that lost a folder) fails here, not silently in `npm run lint:deps`.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const BIN = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

const TREE: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
  }),
  // Allowed: a leaf, and store (layer 5) on redis (layer 2) and on a root leaf.
  'src/errors.ts': 'export class E extends Error {}\n',
  'src/redis/keys.ts': "import { E } from '../errors.js';\nexport const k = (): E => new E();\n",
  'src/store/records.ts': "import { k } from '../redis/keys.js';\nexport const r = k;\n",
  // Upward: store (5) imports queue (9), by a type-only import.
  'src/store/upward.ts': "import type { Q } from '../queue/jobs.js';\nexport type U = Q;\n",
  'src/queue/jobs.ts': "import { r } from '../store/records.js';\nexport type Q = typeof r;\n",
  // A file-level cycle inside one folder, through a type-only import.
  'src/loop/a.ts': "import type { B } from './b.js';\nexport type A = { b?: B };\n",
  'src/loop/b.ts': "import type { A } from './a.js';\nexport type B = { a?: A };\n",
  // The engine reaching into a source.
  'src/http/route.ts': "import { g } from '../../sources/github/index.js';\nexport const h = g;\n",
  // A folder of src/ with no layer.
  'src/newfolder/thing.ts': "import { E } from '../errors.js';\nexport const t = E;\n",
  // Sources: one through the shared folder (allowed), one straight into another source (forbidden).
  'sources/common/identity.ts': 'export const id = 1;\n',
  'sources/github/index.ts': "import { id } from '../common/identity.js';\nexport const g = id;\n",
  'sources/jira/index.ts': "import { g } from '../github/index.js';\nexport const j = g;\n",
  // Toolsets: none is shared yet.
  'toolsets/bash/index.ts': 'export const b = 1;\n',
  'toolsets/prometheus/index.ts': "import { b } from '../bash/index.js';\nexport const p = b;\n",
  // Destinations: the shared file beside them (allowed), one destination into another (forbidden).
  'destinations/http-post.ts': 'export const post = 1;\n',
  'destinations/slack/index.ts': "import { post } from '../http-post.js';\nexport const s = post;\n",
  'destinations/teams/index.ts': "import { s } from '../slack/index.js';\nexport const t = s;\n",
  // A source reaching into what runs it (queue, layer 9) rather than the layers it builds on.
  'sources/pagerduty/index.ts': "import type { Q } from '../../src/queue/jobs.js';\nexport type P = Q;\n",
  'cli/main.ts': "import { j } from '../sources/jira/index.js';\nexport const m = j;\n",
};

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

let dir: string;
let violations: Violation[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'depcruise-'));
  for (const [path, text] of Object.entries(TREE)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const run = promisify(execFile);
  // depcruise exits non-zero when it finds violations: its JSON is on stdout either way.
  const out = await run(
    process.execPath,
    [BIN, 'src', 'sources', 'toolsets', 'destinations', 'cli', '--config', CONFIG, '--output-type', 'json'],
    { cwd: dir },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  violations = (JSON.parse(out.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const found = (rule: string) => violations.filter((v) => v.rule.name === rule).map((v) => `${v.from} → ${v.to}`);

describe('.dependency-cruiser.cjs', () => {
  it('forbids a cycle between files, type-only imports included', () => {
    // depcruise names a cycle once, from the first of its files it reached.
    expect(found('no-circular')).toEqual(['src/loop/a.ts → src/loop/b.ts']);
  });

  it('forbids an import from a lower layer to a higher one, type-only imports included', () => {
    expect(found('layer-5-store')).toEqual(['src/store/upward.ts → src/queue/jobs.ts']);
  });

  it('allows imports down the layers', () => {
    const from = violations.map((v) => v.from);
    expect(from).not.toContain('src/store/records.ts');
    expect(from).not.toContain('src/redis/keys.ts');
    expect(from).not.toContain('sources/github/index.ts');
  });

  it('forbids the engine to import sources, toolsets or the CLI', () => {
    expect(found('engine-imports-no-edge')).toEqual(['src/http/route.ts → sources/github/index.ts']);
  });

  it('forbids a folder of src/ that has no layer', () => {
    expect(found('src-folder-has-a-layer-too')).toEqual(['src/newfolder/thing.ts → src/errors.ts']);
  });

  it('forbids one source or toolset to import another, except through a shared folder', () => {
    expect(found('no-cross-sources')).toEqual(['sources/jira/index.ts → sources/github/index.ts']);
    expect(found('no-cross-toolsets')).toEqual(['toolsets/prometheus/index.ts → toolsets/bash/index.ts']);
  });

  it('forbids one destination to import another, but not the shared files beside them', () => {
    expect(found('no-cross-destinations')).toEqual(['destinations/teams/index.ts → destinations/slack/index.ts']);
    expect(violations.map((v) => v.from)).not.toContain('destinations/slack/index.ts');
  });

  it('forbids a source or toolset to import the layers that run it', () => {
    expect(found('edges-stay-low')).toEqual(['sources/pagerduty/index.ts → src/queue/jobs.ts']);
  });

  it('finds nothing else', () => {
    expect(violations).toHaveLength(8);
  });
});
