import { relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

declare module 'vitest' {
  interface ProvidedContext {
    /** Set by Stryker's vitest runner: 'dry-run' for its initial test run, 'mutant' for a mutant's. */
    mode?: 'dry-run' | 'mutant';
  }
}

/**
 * A vitest reporter for Stryker's runs (vitest.stryker.config.ts). A test file that throws while it loads
 * (it reads a file Stryker did not copy into its sandbox, say) has no tests, so Stryker's vitest runner sees
 * nothing fail and goes on without it: every mutant only that file reaches reads as uncovered, and the run
 * says nothing. In Stryker's initial test run this reporter turns such a file into an error outside a test,
 * which stops the run with the file's name and its error. In a mutant's run a file that does not load is
 * left alone: a mutant of module-level code may be what broke it.
 */
export class StrykerLoadGuard implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const vitest = this.vitest;
    if (!vitest || vitest.getRootProject().getProvidedContext().mode !== 'dry-run') return;
    for (const module of testModules) {
      const errors = module.errors();
      if (errors.length === 0) continue;
      const file = relative(vitest.config.root, module.moduleId);
      vitest.state.catchError(
        new Error(
          `${file} did not load in Stryker's sandbox, so none of its tests ran: ${errors.map((e) => e.message).join('; ')}. ` +
            "A file the tests read must be copied into the sandbox (stryker.config.mjs's ignorePatterns).",
        ),
        'Unhandled Error',
      );
    }
  }
}
