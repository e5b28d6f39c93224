import { Command, InvalidArgumentError } from 'commander';
import { apiOptions, type ApiOptions } from './api-client.js';
import { askCommand } from './ask-command.js';
import { decideCommand } from './decide-command.js';
import { listCommand, type ListOptions } from './list-command.js';
import { rerunCommand } from './rerun-command.js';
import { showCommand } from './show-command.js';
import { COLOUR, PLAIN, type Style } from './terminal-markdown.js';

const URL_HELP = 'the running service (default: LESTRADE_URL, else http://127.0.0.1:8080)';

/** The commands that talk to a running `lestrade serve` through its API (token from LESTRADE_API_TOKEN). */
export function addRemoteCommands(program: Command, env: NodeJS.ProcessEnv): void {
  const api = (url: string | undefined) => apiOptions(url, env);
  const style = (): Style => (process.stdout.isTTY && !env.NO_COLOR ? COLOUR : PLAIN);

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
    .action((opts: ListOptions & { url?: string }) => listCommand(api(opts.url), opts, process.stdout));

  program
    .command('show')
    .argument('<id>', 'investigation id')
    .description('show an investigation: RCA, pending approvals, tool calls, write-backs')
    .option('--json', "print the API's JSON")
    .option('--url <url>', URL_HELP)
    .action((id: string, opts: { json?: boolean; url?: string }) =>
      showCommand(api(opts.url), id, Boolean(opts.json), style(), process.stdout),
    );

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
      .action((id: string, call: string, opts: { reason?: string; url?: string }) =>
        decideCommand(api(opts.url), id, call, approved, opts.reason, process.stdout),
      );
  }

  addRunCommands(program, api, style);
}

/** `rerun` and `ask`: a completed investigation run again, or asked a follow-up question. */
function addRunCommands(program: Command, api: (url: string | undefined) => ApiOptions, style: () => Style): void {
  program
    .command('rerun')
    .argument('<id>', 'a completed, failed or cancelled investigation')
    .description('run an investigation again from its issue; its write-back edits the earlier comment')
    .option('--url <url>', URL_HELP)
    .action((id: string, opts: { url?: string }) => rerunCommand(api(opts.url), id, process.stdout));

  program
    .command('ask')
    .argument('<id>', "a completed investigation's id")
    .argument('<question>', 'the follow-up question')
    .description('ask a follow-up question on a completed investigation and wait for the answer')
    .option('--timeout <seconds>', 'give up waiting after this long (the question is still answered)', positiveInt, 300)
    .option('--url <url>', URL_HELP)
    .action((id: string, question: string, opts: { timeout: number; url?: string }) =>
      askCommand(api(opts.url), id, question, {
        timeoutSeconds: opts.timeout,
        style: style(),
        out: process.stdout,
        progress: process.stderr.isTTY ? process.stderr : null,
      }),
    );
}

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}
