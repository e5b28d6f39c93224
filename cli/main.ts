// The `lestrade` command. Start-up imports commander and the commands' declarations only: each
// command's implementation (the engine, the sources, the API client) is imported by its action,
// so `--version` and `--help` answer at once (docs/benchmarks.md). tests/integration/cli/lazy-start.test.ts
// checks what `--version` loads.
import { Command } from 'commander';
import { ConfigError, InputError, LestradeError } from '../src/errors.js';
import { loadCliConfig } from './cli-config.js';
import { addInvestigateCommands, wantsInvestigate } from './investigate-commands.js';
import { addRemoteCommands } from './remote-commands.js';
import { addEvalCommands } from './eval/register.js';
import { packageVersion } from './version.js';

const env = process.env;
const program = new Command('lestrade')
  .description('Investigates alerts and tickets with an LLM and the tools you allow it')
  .version(packageVersion(), '-V, --version', 'print the version')
  .option('-c, --config <file>', 'YAML config file (or LESTRADE_CONFIG)')
  .option('--debug', 'on a failure, print its stack trace too');

const config = () => loadCliConfig(env, program.opts<{ config?: string }>().config ?? env.LESTRADE_CONFIG);

program
  .command('serve')
  .description('run the HTTP server (webhooks, API) and workers')
  .action(async () => (await import('./run-service.js')).runService(await config(), env, true));
program
  .command('worker')
  .description('run workers only, against the same Redis as the server')
  .action(async () => (await import('./run-service.js')).runService(await config(), env, false));

await addInvestigate();

program
  .command('toolsets')
  .description('inspect toolsets')
  .command('list')
  .description('show each toolset as enabled, disabled or failed, with why')
  .option('--json', 'print JSON')
  .action(async (opts: { json?: boolean }) =>
    (await import('./toolsets-list-command.js')).toolsetsListCommand(await config(), env, opts),
  );

addRemoteCommands(program, env);
addEvalCommands(program, env, config);

/** `investigate` and, when this command line runs it, one subcommand per source (the sources are loaded only then). */
async function addInvestigate(): Promise<void> {
  if (!wantsInvestigate(process.argv.slice(2))) {
    addInvestigateCommands(program, env, config, null, 0);
    return;
  }
  const [{ sources }, { CONFIRM_ABOVE }] = await Promise.all([
    import('../sources/index.js'),
    import('./write-plan.js'),
  ]);
  addInvestigateCommands(program, env, config, sources, CONFIRM_ABOVE);
}

program.parseAsync().catch((err: unknown) => {
  process.stderr.write(`lestrade: ${failureLine(err)}\n`);
  process.exit(err instanceof ConfigError || err instanceof InputError ? 2 : 1);
});

/** One line; the stack only with --debug or LOG_LEVEL=debug (or trace). */
function failureLine(err: unknown): string {
  const debug = program.opts<{ debug?: boolean }>().debug === true || /^(debug|trace)$/i.test(env.LOG_LEVEL ?? '');
  if (!(err instanceof Error)) return String(err);
  if (debug && err.stack) return err.stack;
  return err instanceof LestradeError ? err.message : err.message.split('\n')[0]!;
}
