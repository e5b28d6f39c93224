import type { Command } from 'commander';
import type { Config } from '../src/config/schema.js';
import type { AnySource } from '../src/registration/source.js';
import type { PullOptions } from './investigate-command.js';
import { positiveInt } from './positive-int.js';

/** Whether this command line runs `investigate` (or asks for its help): only then are the sources loaded. */
export function wantsInvestigate(argv: readonly string[]): boolean {
  return argv.includes('investigate');
}

/**
 * `lestrade investigate <source>`, one subcommand per source that can be pulled from. Without the
 * sources (any other command) only `investigate` itself is declared, so `lestrade --help` still lists it.
 */
export function addInvestigateCommands(
  program: Command,
  env: NodeJS.ProcessEnv,
  config: () => Promise<Config>,
  sources: readonly AnySource[] | null,
  confirmAbove: number,
): void {
  const investigate = program
    .command('investigate')
    .description('investigate issues pulled from a source and print the RCA');
  for (const source of sources ?? []) {
    if (!source.pull) continue;
    const cmd = investigate.command(source.name).description(source.pull.description);
    for (const o of source.pull.options) {
      if (o.repeatable) cmd.option(o.flags, o.description, (v: string, acc: string[]) => [...acc, v], []);
      else if (o.integer) cmd.option(o.flags, o.description, positiveInt);
      else cmd.option(o.flags, o.description, o.defaultValue);
    }
    cmd.option('-n, --limit <n>', 'investigate at most n issues', positiveInt);
    // Alertmanager has nowhere to write: no --update to offer and then refuse.
    if (source.writer)
      cmd
        .option('--update', 'write each RCA back to its issue (one comment, edited on later runs)')
        .option('--all', "with --update: write to every issue found, not only those the webhooks' trust rules allow")
        .option('--dry-run', 'say which issues --update would write to, and investigate, but write nothing')
        .option('--yes', `with --update: write to more than ${confirmAbove} issues without asking`);
    cmd.option('--json-output-file <file>', 'also write the results as JSON').action(async (opts: PullOptions) => {
      const cfg = await config();
      const [{ investigateFromSource }, { createLogger }] = await Promise.all([
        import('./investigate-command.js'),
        import('../src/log.js'),
      ]);
      await investigateFromSource(
        source,
        cfg,
        env,
        opts,
        createLogger(cfg.log.level === 'info' ? 'warn' : cfg.log.level),
        (s) => process.stdout.write(s),
      );
    });
  }
}
