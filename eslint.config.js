// ESLint 9 flat config: typescript-eslint's type-checked recommended rules over the whole tree, plus the house rules
// (docs: no nested ternaries, functions of at most 60 lines outside tests, no floating promises, no silent catch).
// Prettier owns layout: eslint-config-prettier comes last and turns off every rule that would fight it.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import local from './eslint-rules/no-silent-catch.js';

export default tseslint.config(
  {
    ignores: ['node_modules/', 'dist/', 'coverage/', 'reports/', '.stryker-tmp/', '.data/', '.prof/', 'docs/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...globals.node },
      parserOptions: {
        projectService: {
          // Files outside tsconfig.json's include (the plain-JS scripts and the root configs) are type-checked in
          // a default project with tsconfig.json's options.
          allowDefaultProject: [
            '*.js',
            '*.mjs',
            '*.cjs',
            'vitest.stryker.config.ts',
            'bin/*.js',
            'bench/*.mjs',
            'tests/helpers/*.mjs',
            'scripts/*.mjs',
            'eslint-rules/*.js',
          ],
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 20,
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { local },
    rules: {
      'no-nested-ternary': 'error',
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      // An empty catch block is judged by local/no-silent-catch, which also accepts a comment just above it.
      'no-empty': ['error', { allowEmptyCatch: true }],
      'local/no-silent-catch': 'error',
      // A parameter whose name starts with _ is one the signature imposes (an Express error handler's next);
      // a property taken out of an object only to leave it out of the rest is not unused either.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Off: here an async function without await is how a Promise-returning interface is implemented (a tool's
      // run, a closer, a verifier, the doubles): it turns a synchronous throw into a rejection, which callers'
      // .catch() and Promise.all rely on. Dropping the async to please the rule would change that behaviour.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Plain JavaScript has no types to check against: every value the type-checked rules see is `any`, so the
    // no-unsafe-* rules would flag every line that touches one. The other type-aware rules still apply.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // CommonJS configuration files (.dependency-cruiser.cjs).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    // The dashboard's browser script (served as is, a classic script, outside tsconfig.json's project): browser
    // globals and the plain rules; the type-checked rules need a TypeScript program this file is not part of.
    files: ['src/dashboard/assets/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      sourceType: 'script',
      globals: { ...globals.browser },
      parserOptions: { projectService: false, program: null, project: false },
    },
  },
  {
    // Tests and benchmarks may be long: a test reads best as one story.
    files: ['tests/**', 'bench/**'],
    rules: {
      'max-lines-per-function': 'off',
    },
  },
  {
    files: ['tests/**'],
    rules: {
      // Tests read HTTP replies, Redis hashes and vendor doubles' requests as untyped JSON (`await res.json()`)
      // and assert on their fields: the no-unsafe-* rules flag nearly every such line (867 hits) without finding a
      // defect, since the assertion itself is the check.
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // For the same reason a test may type such a document `any` (Record<string, any>) to read it.
      '@typescript-eslint/no-explicit-any': 'off',
      // Tests take helpers out of suite objects (const { makeWriter, posts } = suite) and hand vi.fn() mocks to
      // expect(): none of them reads `this`.
      '@typescript-eslint/unbound-method': 'off',
      // A double's async request handler (createServer(async (req, res) => ...)): a rejection there surfaces as
      // vitest's unhandled-rejection error and fails the run, which is what a test wants.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
    },
  },
  prettier,
);
