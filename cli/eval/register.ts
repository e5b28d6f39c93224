import { type Command, InvalidArgumentError } from 'commander';
import type { Config } from '../../src/config/schema.js';
import { InputError } from '../../src/errors.js';
import { positiveInt } from '../positive-int.js';
import type { EvalOptions } from './eval-command.js';

/** `lestrade eval [DIR...]` and `lestrade eval record <id> DIR`: declared here, implemented where each action imports it. */
export function addEvalCommands(program: Command, env: NodeJS.ProcessEnv, config: () => Promise<Config>): void {
  const evalCmd = program
    .command('eval')
    .description('run recorded cases (HolmesGPT format) through the investigation path and score the answers')
    .argument('[dirs...]', 'folders of cases, or case folders (default: evals)')
    .option('--model <m>', 'the model to investigate with; comma-separate several to compare them')
    .option('--judge-model <m>', 'judge each expected fact with this model (same OpenAI-compatible endpoint)')
    .option('--judge <kind>', '"contains": plain fact matching (the default without --judge-model)')
    .option('--filter <tag|name>', 'only cases with this tag or whose name contains it; comma-separate several')
    .option('--repeat <n>', 'run each case n times (pass rates with their spread)', positiveInt)
    .option('--parallel <n>', 'cases at once (default 4)', positiveInt)
    .option('--json <file>', 'also write every result, with the judge reasoning, as JSON')
    .option('--min-pass <percent>', 'exit 1 when the pass rate is below this (0-100)', percent)
    .option('--compare <file>', "set the pass rates beside HolmesGPT's published result file's, case by case")
    .option('--replay', 'no model: make each recorded call as recorded; say which its own mock answered')
    .action(async (dirs: string[], opts: EvalOptions) => {
      const cfg = await config();
      const { evalCommand } = await import('./eval-command.js');
      const { replayCommand } = await import('./replay-command.js');
      const code = await (opts.replay ? replayCommand : evalCommand)(dirs, opts, cfg, {
        out: (s) => process.stdout.write(s),
        progress: process.stderr,
        env,
      });
      process.exitCode = code;
    });
  evalCmd
    .command('record')
    .description(
      'turn a completed investigation of a running service into a case folder; with --feedback wrong, every answer people judged wrong (and said why) into DIR',
    )
    .argument('[id]', 'investigation id (not with --feedback)')
    .argument('[dir]', 'the case folder to create (with --feedback: the folder the case folders go into)')
    .option('--feedback <verdict>', 'record the answers with this verdict instead of one id: "wrong"', feedbackVerdict)
    .option('--days <n>', 'with --feedback: the answers of the last n UTC days (1-365, default 30)', positiveInt)
    .option('--url <url>', 'the running service (default: LESTRADE_URL, else http://127.0.0.1:8080)')
    .action(async (first: string | undefined, second: string | undefined, opts: RecordOptions) => {
      const { id, dir } = recordArguments(first, second, opts);
      const cfg = await config();
      const [{ recordCommand }, { apiOptions }, { redactorFromConfig }] = await Promise.all([
        import('./record-command.js'),
        import('../api-client.js'),
        import('../../src/config/secrets.js'),
      ]);
      const toolsets = await toolsetOf(cfg, env);
      const api = apiOptions(opts.url, env);
      if (opts.feedback) {
        const { recordWrongAnswers, recordWrongSummary } = await import('./record-wrong.js');
        const r = await recordWrongAnswers(api, dir, opts.days ?? 30, redactorFromConfig(cfg), toolsets);
        process.stdout.write(recordWrongSummary(r, dir));
        return;
      }
      const r = await recordCommand(api, id!, dir, redactorFromConfig(cfg), toolsets);
      process.stdout.write(
        `Recorded ${r.mocks.length} tool output${r.mocks.length === 1 ? '' : 's'} into ${r.folder}` +
          `${r.skipped ? ` (${r.skipped} calls that did not run left out)` : ''}; ` +
          'now replace the placeholder expected_output in its test_case.yaml.\n',
      );
    });
}

interface RecordOptions {
  feedback?: 'wrong';
  days?: number;
  url?: string;
}

/** `record <id> <dir>`, or `record --feedback wrong <dir>`: anything else names the form expected. */
function recordArguments(first: string | undefined, second: string | undefined, opts: RecordOptions) {
  if (opts.feedback) {
    if (!first || second)
      throw new InputError('', 'with --feedback give one folder: lestrade eval record --feedback wrong DIR');
    return { id: undefined, dir: first };
  }
  if (opts.days !== undefined) throw new InputError('', '--days goes with --feedback wrong');
  if (!first || !second)
    throw new InputError('', 'give an investigation id and a folder: lestrade eval record <id> DIR');
  return { id: first, dir: second };
}

function feedbackVerdict(v: string): 'wrong' {
  if (v !== 'wrong') throw new InvalidArgumentError('only "wrong" answers are recorded as cases (--feedback wrong)');
  return v;
}

/** Which toolset each tool belongs to (the built-in ones and the configured YAML folders'). */
async function toolsetOf(cfg: Config, env: NodeJS.ProcessEnv): Promise<Map<string, string>> {
  const [{ loadYamlToolsets }, { BUILTIN_YAML_DIR, builtinToolsets }] = await Promise.all([
    import('../../src/tools/toolset-registry.js'),
    import('../../toolsets/index.js'),
  ]);
  const yaml = loadYamlToolsets([BUILTIN_YAML_DIR, ...cfg.toolsets.dirs], env);
  return new Map(
    [...builtinToolsets(cfg), ...yaml.toolsets].flatMap((ts) => ts.tools.map((t) => [t.name, ts.name] as const)),
  );
}

function percent(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 100) throw new InvalidArgumentError('expected a percentage, 0-100');
  return n;
}
