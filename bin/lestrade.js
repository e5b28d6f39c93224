#!/usr/bin/env node
// Runs the compiled JavaScript in dist/ (`npm run build`; `npm start` and the Docker image build it).
// A checkout without dist/, or LESTRADE_FROM_SOURCE=1 (the tests), runs the TypeScript sources
// through tsx, a development dependency.
import { existsSync } from 'node:fs';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
if (process.env.LESTRADE_FROM_SOURCE !== '1' && existsSync(compiled)) {
  await import(compiled.href);
} else {
  let register;
  try {
    ({ register } = await import('tsx/esm/api'));
  } catch {
    process.stderr.write(
      'lestrade: no dist/ build and no tsx to run the sources: run `npm run build` first (or `npm ci` for the development tools)\n',
    );
    process.exit(1);
  }
  register();
  await import('../cli/main.ts');
}
