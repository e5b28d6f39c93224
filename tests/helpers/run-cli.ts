import { spawn } from 'node:child_process';

const BIN = new URL('../../bin/lestrade.js', import.meta.url).pathname;
/** LESTRADE_FROM_SOURCE: the tests run the TypeScript sources, never a dist/ build that may be stale. */
/** `lestrade worker` listens on an ephemeral port (LESTRADE_WORKER_PORT) unless a test names one: tests run side by side. */
export const BASE_ENV = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  LESTRADE_FROM_SOURCE: '1',
  LESTRADE_WORKER_PORT: '0',
};

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `lestrade` binary as a child process with only PATH, HOME and the given env. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...BASE_ENV, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
