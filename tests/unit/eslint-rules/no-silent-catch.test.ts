import { RuleTester } from 'eslint';
import { describe, it } from 'vitest';
import plugin from '../../../eslint-rules/no-silent-catch.js';

// RuleTester builds its own describe/it blocks: hand it vitest's.
RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const tester = new RuleTester({ languageOptions: { ecmaVersion: 2022, sourceType: 'module' } });
const promise = { messageId: 'silentPromiseCatch' } as const;
const clause = { messageId: 'silentCatchClause' } as const;

tester.run('no-silent-catch', plugin.rules['no-silent-catch'], {
  valid: [
    // Handlers that do something with the error, or compute their fallback.
    'p.catch((err) => log(err));',
    'p.catch((err) => err.code === 404 ? null : rethrow(err));',
    'p.catch(() => fallback());',
    'p.catch(handler);',
    'p.then(ok, (e) => report(e));',
    'p.then(() => undefined);',
    'try { f(); } catch (e) { log(e); }',
    // Dropped with a reason: on the line, on the line above, inside the handler.
    'p.catch(() => undefined); // best effort: the lock expires anyway',
    '// best effort: the lock expires anyway\np.catch(() => undefined);',
    'p.catch(() => { /* a job that already left the delayed state runs anyway */ });',
    'p.then(() => 1, () => null); // not ready yet: asked again',
    'try { f(); } catch { /* not JSON: the caller falls back to text */ }',
    'try {\n  f();\n} catch {\n  // not JSON: the caller falls back to text\n}',
    // A comment above the statement still counts once a formatter broke the chain over lines.
    'async function g() {\n  // a job a worker took meanwhile has no priority to raise\n  await queue\n    .getJob(id)\n    .then((j) => j.raise())\n    .catch(() => undefined);\n}',
    '// not listening yet: asked again\nfor (;;) if (await fetch(u)\n  .then((r) => r.ok, () => false)) break;',
  ],
  invalid: [
    { code: 'p.catch(() => undefined);', errors: [promise] },
    { code: 'p.catch(() => {});', errors: [promise] },
    { code: 'p.catch(() => null);', errors: [promise] },
    { code: 'p.catch(() => void 0);', errors: [promise] },
    { code: 'p.catch(() => []);', errors: [promise] },
    { code: 'p.catch(() => ({}));', errors: [promise] },
    { code: 'p.catch(() => false);', errors: [promise] },
    { code: 'p.catch(function () {});', errors: [promise] },
    { code: 'p.catch((_err) => undefined);', errors: [promise] },
    { code: 'p.then(ok, () => undefined);', errors: [{ ...promise, data: { method: '.then()' } }] },
    { code: 'try { f(); } catch {}', errors: [clause] },
    { code: 'try { f(); } catch (e) {}', errors: [clause] },
    // A comment two lines up, below, or above the enclosing function explains nothing here.
    { code: '// unrelated\n\np.catch(() => undefined);', errors: [promise] },
    { code: 'p.catch(() => undefined);\n// below', errors: [promise] },
    { code: '// the function\nfunction g() {\n  f();\n  p.catch(() => undefined);\n}', errors: [promise] },
    { code: '// the block\n{\n  f();\n  p.catch(() => undefined);\n}', errors: [promise] },
  ],
});
