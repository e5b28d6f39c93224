import { describe, expect, it } from 'vitest';
import type { TestModule, Vitest } from 'vitest/node';
import { StrykerLoadGuard } from '../../setup/stryker-load-guard.js';

function guardIn(mode: 'dry-run' | 'mutant' | undefined) {
  const caught: Array<{ error: Error; type: string }> = [];
  const vitest = {
    config: { root: '/repo' },
    getRootProject: () => ({ getProvidedContext: () => ({ mode }) }),
    state: { catchError: (error: Error, type: string) => caught.push({ error, type }) },
  } as unknown as Vitest;
  const guard = new StrykerLoadGuard();
  guard.onInit(vitest);
  return { guard, caught };
}

function moduleWith(moduleId: string, errors: string[]): TestModule {
  return { moduleId, errors: () => errors.map((message) => ({ message })) } as unknown as TestModule;
}

describe("the load guard of Stryker's runs", () => {
  it('stops the initial run on a test file that did not load, naming the file, its error and the fix', () => {
    const { guard, caught } = guardIn('dry-run');
    guard.onTestRunEnd([
      moduleWith('/repo/tests/unit/a.test.ts', []),
      moduleWith('/repo/tests/integration/b.test.ts', ["ENOENT: no such file, open '/sandbox/docs/toolsets.md'"]),
    ]);
    expect(caught).toHaveLength(1);
    expect(caught[0]!.type).toBe('Unhandled Error');
    expect(caught[0]!.error.message).toBe(
      "tests/integration/b.test.ts did not load in Stryker's sandbox, so none of its tests ran: " +
        "ENOENT: no such file, open '/sandbox/docs/toolsets.md'. A file the tests read must be copied into the " +
        "sandbox (stryker.config.mjs's ignorePatterns).",
    );
  });

  it("leaves a mutant's run alone, and any run outside Stryker", () => {
    for (const mode of ['mutant', undefined] as const) {
      const { guard, caught } = guardIn(mode);
      guard.onTestRunEnd([moduleWith('/repo/tests/b.test.ts', ['boom'])]);
      expect(caught).toEqual([]);
    }
  });
});
