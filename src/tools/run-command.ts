import { spawn } from 'node:child_process';

export interface CommandOutput {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  truncated: boolean;
}

/**
 * Runs argv without a shell (so no argument can become shell syntax), capping what it keeps
 * of stdout and stderr, and killing it on abort.
 */
export function runCommand(
  argv: string[],
  opts: { signal?: AbortSignal; maxBytes?: number; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandOutput> {
  const maxBytes = opts.maxBytes ?? 256 * 1024;
  return new Promise((resolve, reject) => {
    const [cmd, ...args] = argv;
    if (!cmd) return reject(new Error('empty command'));
    const child = spawn(cmd, args, {
      shell: false,
      env: opts.env ?? process.env,
      signal: opts.signal,
      timeout: opts.timeoutMs,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = collector(maxBytes);
    const err = collector(maxBytes);
    child.stdout.on('data', out.push);
    child.stderr.on('data', err.push);
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ENOENT' ? new Error(`command not found: ${cmd}`) : e),
    );
    child.on('close', (code) =>
      resolve({
        exitCode: code,
        stdout: out.text(),
        stderr: err.text(),
        truncated: out.truncated() || err.truncated(),
      }),
    );
  });
}

function collector(maxBytes: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  let dropped = false;
  return {
    push: (chunk: Buffer) => {
      if (size >= maxBytes) {
        dropped = true;
        return;
      }
      const part = chunk.subarray(0, maxBytes - size);
      if (part.length < chunk.length) dropped = true;
      chunks.push(part);
      size += part.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
    truncated: () => dropped,
  };
}
