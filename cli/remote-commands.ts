import { Argument, type Command } from 'commander';
import type { ApiOptions } from './api-client.js';
import type { ListOptions } from './list-command.js';
import { positiveInt } from './positive-int.js';
import type { Style } from './terminal-markdown.js';

const URL_HELP = 'the running service (default: LESTRADE_URL, else http://127.0.0.1:8080)';

type Api = (url: string | undefined) => Promise<ApiOptions>;

/**
 * The commands that talk to a running `lestrade serve` through its API (token from LESTRADE_API_TOKEN).
 * Declared here in full (their help); each action imports its implementation when it runs.
 */
export function addRemoteCommands(program: Command, env: NodeJS.ProcessEnv): void {
  const api: Api = async (url) => (await import('./api-client.js')).apiOptions(url, env);
  const style = async (): Promise<Style> => {
    const { COLOUR, PLAIN } = await import('./terminal-markdown.js');
    return process.stdout.isTTY && !env.NO_COLOR ? COLOUR : PLAIN;
  };

  program
    .command('list')
    .description('list investigations of a running service, newest first')
    .option(
      '--status <s>',
      'only these statuses, comma-separated (queued, running, awaiting_approval, completed, failed, ...)',
    )
    .option('--source <name>', 'only these sources, comma-separated (alertmanager, github, jira, ...)')
    .option('--severity <s>', 'only these severities, comma-separated (critical, high, warning, info, unknown)')
    .option('--since <when>', 'created within a duration (30m, 2h, 7d) or since an ISO time')
    .option('-n, --limit <n>', 'at most n (1-500, default 50)', positiveInt)
    .option('--json', 'print JSON')
    .option('--url <url>', URL_HELP)
    .action(async (opts: ListOptions & { url?: string }) =>
      (await import('./list-command.js')).listCommand(await api(opts.url), opts, process.stdout),
    );

  program
    .command('show')
    .argument('<id>', 'investigation id')
    .description('show an investigation: RCA, pending approvals, tool calls, write-backs')
    .option('--json', "print the API's JSON")
    .option('--url <url>', URL_HELP)
    .action(async (id: string, opts: { json?: boolean; url?: string }) => {
      const { showCommand } = await import('./show-command.js');
      await showCommand(await api(opts.url), id, Boolean(opts.json), await style(), process.stdout);
    });

  for (const [name, approved] of [
    ['approve', true],
    ['deny', false],
  ] as const) {
    program
      .command(name)
      .argument('<id>', 'investigation id')
      .argument('<call>', 'the pending tool call id (see `lestrade show`)')
      .description(`${name} a tool call the investigation is waiting on`)
      .option('--reason <text>', approved ? 'why (recorded)' : 'why not: handed to the model with the denial')
      .option('--url <url>', URL_HELP)
      .action(async (id: string, call: string, opts: { reason?: string; url?: string }) => {
        const { decideCommand } = await import('./decide-command.js');
        await decideCommand(await api(opts.url), id, call, approved, opts.reason, process.stdout);
      });
  }

  addQualityCommand(program, api);
  addRunCommands(program, api, style);
  addFeedbackCommand(program, api);

  program
    .command('forget')
    .argument('<id>', 'investigation id (a short id works while its investigation is kept)')
    .description("forget an investigation's memory record: it is no longer offered as a similar past incident")
    .option('--url <url>', URL_HELP)
    .action(async (id: string, opts: { url?: string }) =>
      (await import('./forget-command.js')).forgetCommand(await api(opts.url), id, process.stdout),
    );
}

/** `feedback`: a person's verdict on an investigation's RCA (docs/feedback.md). */
function addFeedbackCommand(program: Command, api: Api): void {
  program
    .command('feedback')
    .argument('<id>', "a completed investigation's id")
    .addArgument(new Argument('<verdict>', 'was the RCA right').choices(['correct', 'partly', 'wrong']))
    .description('say whether an RCA was right; your latest verdict on an investigation counts')
    .option('--cause <text>', 'the actual root cause (with wrong or partly)')
    .option('--note <text>', 'a note: what was missing or wrong')
    .option('--url <url>', URL_HELP)
    .action(async (id: string, verdict: string, opts: { cause?: string; note?: string; url?: string }) => {
      const { feedbackCommand } = await import('./feedback-command.js');
      await feedbackCommand(await api(opts.url), id, verdict, opts, process.stdout);
    });
}

/** `rerun` and `ask`: a completed investigation run again, or asked a follow-up question. */
function addRunCommands(program: Command, api: Api, style: () => Promise<Style>): void {
  program
    .command('rerun')
    .argument('<id>', 'a completed, failed or cancelled investigation')
    .description('run an investigation again from its issue; its write-back edits the earlier comment')
    .option('--url <url>', URL_HELP)
    .action(async (id: string, opts: { url?: string }) =>
      (await import('./rerun-command.js')).rerunCommand(await api(opts.url), id, process.stdout),
    );

  program
    .command('ask')
    .argument('<id>', "a completed investigation's id")
    .argument('<question>', 'the follow-up question')
    .description('ask a follow-up question on a completed investigation and wait for the answer')
    .option('--timeout <seconds>', 'give up waiting after this long (the question is still answered)', positiveInt, 300)
    .option('--url <url>', URL_HELP)
    .action(async (id: string, question: string, opts: { timeout: number; url?: string }) => {
      const { askCommand } = await import('./ask-command.js');
      await askCommand(await api(opts.url), id, question, {
        timeoutSeconds: opts.timeout,
        style: await style(),
        out: process.stdout,
        progress: process.stderr.isTTY ? process.stderr : null,
      });
    });
}

/** `lestrade quality`: the service's answers judged over a window (GET /api/quality); then `lestrade checks`. */
function addQualityCommand(program: Command, api: Api): void {
  program
    .command('quality')
    .description("how right the service's answers were: accuracy, cost per correct answer, time to resolve, recurrence")
    .option('--days <n>', 'the last n UTC days, today included (1-365, default 30)', positiveInt)
    .option('--json', "print the API's JSON")
    .option('--url <url>', URL_HELP)
    .action(async (opts: { days?: number; json?: boolean; url?: string }) =>
      (await import('./quality-command.js')).qualityCommand(await api(opts.url), opts, process.stdout),
    );
  addChecksCommand(program, api);
}

/** `lestrade checks list|run|pause|resume`: the health checks of a running service (docs/checks.md). */
function addChecksCommand(program: Command, api: Api): void {
  const checks = program
    .command('checks')
    .description('the health checks of a running service: list, run, pause, resume');
  checks
    .command('list')
    .description('each check with its status, schedule and last runs')
    .option('--json', "print the API's JSON")
    .option('--url <url>', URL_HELP)
    .action(async (opts: { json?: boolean; url?: string }) =>
      (await import('./checks-command.js')).checksListCommand(await api(opts.url), opts, process.stdout),
    );
  const actions = {
    run: 'run a check now (even while paused)',
    pause: 'stop its schedule and deploys starting runs',
    resume: 'undo pause',
  } as const;
  for (const [action, description] of Object.entries(actions) as Array<[keyof typeof actions, string]>) {
    checks
      .command(action)
      .argument('<name>', "the check's name")
      .description(description)
      .option('--url <url>', URL_HELP)
      .action(async (name: string, opts: { url?: string }) =>
        (await import('./checks-command.js')).checkActionCommand(await api(opts.url), action, name, process.stdout),
      );
  }
}
