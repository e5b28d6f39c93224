import { spawn, type ChildProcess } from 'node:child_process';
import type { CommandOutput } from './run-command.js';

export interface PipelineOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  /** Output kept from the last stage (and from stderr); past it every stage is stopped. */
  maxBytes: number;
  env: NodeJS.ProcessEnv;
}

/**
 * Runs argv stages connected stdout → stdin, each its own process, with no shell anywhere: what a
 * shell would do with `a | b`, and nothing else. A timeout, the signal or the output cap stop all.
 */
export function runPipeline(stages: string[][], opts: PipelineOptions): Promise<CommandOutput> {
  return new Promise((resolve, reject) => {
    const run: PipelineRun = {
      children: [],
      stdout: [],
      stderr: [],
      size: 0,
      truncated: false,
      timedOut: false,
      failed: false,
      pending: stages.length,
    };
    const timer = setTimeout(() => {
      run.timedOut = true;
      stopAll(run.children);
    }, opts.timeoutMs);
    const onAbort = () => stopAll(run.children);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (err?: Error) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (err) return reject(err);
      resolve(outputOf(run, opts));
    };
    stages.forEach((argv, i) => startStage(argv, i, i === stages.length - 1, run, opts, finish));
  });
}

/** One pipeline's processes and what it has gathered so far. */
interface PipelineRun {
  children: ChildProcess[];
  stdout: Buffer[];
  stderr: string[];
  /** Bytes of the last stage's stdout kept. */
  size: number;
  truncated: boolean;
  timedOut: boolean;
  /** A stage failed to start: the pipeline has already been rejected. */
  failed: boolean;
  /** Stages not yet done. */
  pending: number;
}

function isRunning(c: ChildProcess): boolean {
  return c.exitCode === null && c.signalCode === null;
}

function stopAll(children: ChildProcess[]): void {
  for (const c of children) if (isRunning(c)) c.kill('SIGKILL');
}

function outputOf(run: PipelineRun, opts: PipelineOptions): CommandOutput {
  const last = run.children.at(-1)!;
  const notes = run.timedOut ? [`timed out after ${opts.timeoutMs} ms`] : [];
  return {
    exitCode: run.timedOut ? null : last.exitCode,
    stdout: Buffer.concat(run.stdout).toString('utf8'),
    stderr: [...run.stderr, ...notes].join('').slice(0, opts.maxBytes),
    truncated: run.truncated,
  };
}

/** Stage i: spawned, fed by the stage before, its output gathered, and counted done when it ends. */
function startStage(
  argv: string[],
  i: number,
  last: boolean,
  run: PipelineRun,
  opts: PipelineOptions,
  finish: (err?: Error) => void,
): void {
  const [cmd, ...args] = argv;
  const child = spawn(cmd!, args, {
    shell: false,
    env: opts.env,
    stdio: [i === 0 ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  run.children.push(child);
  pipeInto(run.children[i - 1], child);
  gatherOutput(child, last, run, opts);
  child.on('error', (e: NodeJS.ErrnoException) => {
    if (run.failed) return;
    run.failed = true;
    stopAll(run.children);
    finish(e.code === 'ENOENT' ? new Error(`command not found: ${cmd}`) : e);
  });
  // A stage that ends stops the ones feeding it, as SIGPIPE would in a shell (yes | head).
  child.on('exit', () => {
    for (const c of run.children.slice(0, i)) if (isRunning(c)) c.kill('SIGPIPE');
  });
  // The last stage counts when its output is all read ('close'); the others when they exit.
  child.on(last ? 'close' : 'exit', () => {
    if (--run.pending === 0 && !run.failed) finish();
  });
}

/** The previous stage's stdout into this one's stdin. */
function pipeInto(prev: ChildProcess | undefined, child: ChildProcess): void {
  if (!prev?.stdout || !child.stdin) return;
  const from = prev.stdout;
  from.pipe(child.stdin);
  child.stdin.on('error', () => undefined); // the next stage may exit first (head): EPIPE is normal
  // Unpiped (its reader died), the stream would sit paused with data and never end: drain it.
  // 'unpipe' is emitted on the destination, not on the source.
  child.stdin.on('unpipe', () => from.resume());
}

/** Every stage's stderr, and the last stage's stdout, up to maxBytes; output past the cap stops every stage. */
function gatherOutput(child: ChildProcess, last: boolean, run: PipelineRun, opts: PipelineOptions): void {
  child.stderr?.on('data', (d: Buffer) => {
    if (run.stderr.join('').length < opts.maxBytes) run.stderr.push(d.toString('utf8'));
  });
  if (!last) return;
  child.stdout?.on('data', (d: Buffer) => {
    const room = opts.maxBytes - run.size;
    run.stdout.push(d.subarray(0, Math.max(0, room)));
    run.size += Math.min(d.length, Math.max(0, room));
    if (d.length > room) {
      run.truncated = true;
      stopAll(run.children);
    }
  });
}
