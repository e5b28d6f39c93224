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
    const children: ChildProcess[] = [];
    const stdout: Buffer[] = [];
    const stderr: string[] = [];
    let size = 0;
    let truncated = false;
    let timedOut = false;
    const stopAll = () => {
      for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stopAll();
    }, opts.timeoutMs);
    const onAbort = () => stopAll();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (err?: Error) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (err) return reject(err);
      const last = children.at(-1)!;
      const notes = timedOut ? [`timed out after ${opts.timeoutMs} ms`] : [];
      resolve({
        exitCode: timedOut ? null : last.exitCode,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: [...stderr, ...notes].join('').slice(0, opts.maxBytes),
        truncated,
      });
    };
    let pending = stages.length;
    let failed = false;
    stages.forEach((argv, i) => {
      const [cmd, ...args] = argv;
      const child = spawn(cmd!, args, {
        shell: false,
        env: opts.env,
        stdio: [i === 0 ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });
      children.push(child);
      const prev = children[i - 1];
      if (prev?.stdout && child.stdin) {
        const from = prev.stdout;
        from.pipe(child.stdin);
        child.stdin.on('error', () => undefined); // the next stage may exit first (head): EPIPE is normal
        // Unpiped (its reader died), the stream would sit paused with data and never end: drain it.
        // 'unpipe' is emitted on the destination, not on the source.
        child.stdin.on('unpipe', () => from.resume());
      }
      child.stderr?.on('data', (d: Buffer) => {
        if (stderr.join('').length < opts.maxBytes) stderr.push(d.toString('utf8'));
      });
      if (i === stages.length - 1) {
        child.stdout?.on('data', (d: Buffer) => {
          const room = opts.maxBytes - size;
          stdout.push(d.subarray(0, Math.max(0, room)));
          size += Math.min(d.length, Math.max(0, room));
          if (d.length > room) {
            truncated = true;
            stopAll();
          }
        });
      }
      child.on('error', (e: NodeJS.ErrnoException) => {
        if (failed) return;
        failed = true;
        stopAll();
        finish(e.code === 'ENOENT' ? new Error(`command not found: ${cmd}`) : e);
      });
      // A stage that ends stops the ones feeding it, as SIGPIPE would in a shell (yes | head).
      child.on('exit', () => {
        for (const c of children.slice(0, i)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGPIPE');
      });
      // The last stage counts when its output is all read ('close'); the others when they exit.
      child.on(i === stages.length - 1 ? 'close' : 'exit', () => {
        if (--pending === 0 && !failed) finish();
      });
    });
  });
}
