// npm run build: compiles the TypeScript to dist/ and copies what the code reads at run time
// relative to its own file (templates/, shipped YAML toolsets, any non-TypeScript file under
// src, sources, destinations, toolsets and cli), so dist/ runs on its own: `node dist/cli/main.js`.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });

function copyAssets(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) copyAssets(path);
    else if (!name.endsWith('.ts')) cpSync(path, join(dist, relative(root, path)));
  }
}
// cli/ too: the eval runner reads cli/eval/tool-aliases.yaml beside its code.
for (const dir of ['src', 'sources', 'destinations', 'toolsets', 'cli']) copyAssets(join(root, dir));
// The prompts resolve templates/ two folders up from src/prompts, in dist/ as in the sources.
cpSync(join(root, 'templates'), join(dist, 'templates'), { recursive: true });
if (!existsSync(join(dist, 'cli', 'main.js'))) throw new Error('build produced no dist/cli/main.js');
// start.sh compares the sources against this stamp to rebuild a stale dist/.
writeFileSync(join(dist, '.build-stamp'), `${new Date().toISOString()}\n`);
