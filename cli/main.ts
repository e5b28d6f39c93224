import { Command, InvalidArgumentError } from 'commander';
import { loadConfig } from '../src/config/load-config.js';
import { redactorFromConfig } from '../src/config/secrets.js';
import { redactUrlsIn } from '../src/redact.js';
import { ConfigError, InputError, LestradeError } from '../src/errors.js';
import { createLogger } from '../src/log.js';
import { buildToolsets } from './build-investigator.js';
import { investigateFromSource, type PullOptions } from './investigate-command.js';
import { CONFIRM_ABOVE } from './write-plan.js';
import { sources } from '../sources/index.js';
import { destinations } from '../destinations/index.js';
import { startLocalRedis, type LocalRedis } from './local-redis.js';
import { startService, type RunningService } from './start-service.js';
import { startupError } from './startup-error.js';
import { packageVersion } from './version.js';
import { addRemoteCommands } from './remote-commands.js';
import { addEvalCommands } from './eval/register.js';
import { RunbookCatalog } from '../src/runbooks/runbook-catalog.js';

const env = process.env;
const program = new Command('lestrade')
  .description('Investigates alerts and tickets with an LLM and the tools you allow it')
  .version(packageVersion(), '-V, --version', 'print the version')
  .option('-c, --config <file>', 'YAML config file (or LESTRADE_CONFIG)')
  .option('--debug', 'on a failure, print its stack trace too');

const config = () =>
  loadConfig(env, program.opts<{ config?: string }>().config ?? env.LESTRADE_CONFIG, sources, destinations);

async function runService(http: boolean) {
  const cfg = config();
  const log = createLogger(cfg.log.level, undefined, redactorFromConfig(cfg), cfg.log.format);
  let local: LocalRedis | null = null;
  let service: RunningService;
  try {
    local = cfg.redis.url ? null : await startLocalRedis(cfg.redis.dataDir, cfg.redis.localPort, log);
    service = await startService(cfg, cfg.redis.url ?? local!.url, log, {
      http,
      workers: true,
      env,
      localRedis: local !== null,
    });
  } catch (err) {
    // Nothing is left running: the redis-server we started goes with us.
    await local?.stop();
    const worker = { port: cfg.server.workerPort, portVar: 'LESTRADE_WORKER_PORT', portKey: 'server.workerPort' };
    throw startupError(err, http ? cfg.server : { ...worker, host: cfg.server.host });
  }
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await service.close();
    await local?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

program
  .command('serve')
  .description('run the HTTP server (webhooks, API) and workers')
  .action(() => runService(true));
program
  .command('worker')
  .description('run workers only, against the same Redis as the server')
  .action(() => runService(false));

const investigate = program
  .command('investigate')
  .description('investigate issues pulled from a source and print the RCA');
for (const source of sources) {
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
      .option('--yes', `with --update: write to more than ${CONFIRM_ABOVE} issues without asking`);
  cmd.option('--json-output-file <file>', 'also write the results as JSON').action(async (opts: PullOptions) => {
    const cfg = config();
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

const toolsets = program.command('toolsets').description('inspect toolsets');
toolsets
  .command('list')
  .description('show each toolset as enabled, disabled or failed, with why')
  .option('--json', 'print JSON')
  .action(async (opts: { json?: boolean }) => {
    const cfg = config();
    const runbooks = RunbookCatalog.load(cfg.runbooks.dirs);
    const resolved = await buildToolsets(cfg, env, runbooks);
    await resolved.close();
    // Reasons quote URLs and command output: no secret or URL password is printed.
    const redact = redactorFromConfig(cfg);
    const print = (text: string) => process.stdout.write(redactUrlsIn(redact(text)));
    if (opts.json) {
      print(`${JSON.stringify(resolved.statuses, null, 2)}\n`);
      return;
    }
    // The name column as wide as the longest name (kubernetes_changes), so the reasons line up.
    const width = Math.max(16, ...resolved.statuses.map((s) => s.name.length));
    for (const s of resolved.statuses) {
      print(
        `${s.state.padEnd(9)} ${s.name.padEnd(width)} ${s.reason ?? `${s.tools.length} tools: ${s.tools.join(', ')}`}\n`,
      );
    }
    print(runbookLines(runbooks));
  });

addRemoteCommands(program, env);
addEvalCommands(program, env, config);

/** What `toolsets list` says of the runbooks: how many loaded, and each file skipped with why. */
function runbookLines(runbooks: RunbookCatalog): string {
  if (runbooks.runbooks.length === 0 && runbooks.problems.length === 0) return '';
  const lines = [`runbooks: ${runbooks.runbooks.length} loaded, ${runbooks.problems.length} skipped`];
  for (const p of runbooks.problems)
    lines.push(`skipped   runbook ${p.file}${p.line ? `:${p.line}` : ''}: ${p.reason}`);
  return `${lines.join('\n')}\n`;
}

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
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
