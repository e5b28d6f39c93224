// Preloaded with `node --import` by tests that check what a command loads (lazy-start.test.ts):
// writes every module the process loaded, ES modules through a load hook and CommonJS ones from
// require's cache, one file URL or path a line, to the file named by LESTRADE_MODULE_LOG at exit.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const log = process.env.LESTRADE_MODULE_LOG;
if (log) {
  register(new URL('./module-log-hooks.mjs', import.meta.url));
  const require = createRequire(import.meta.url);
  process.on('exit', () => {
    const cjs = Object.keys(require.cache);
    if (cjs.length) appendFileSync(log, `${cjs.join('\n')}\n`);
  });
}
