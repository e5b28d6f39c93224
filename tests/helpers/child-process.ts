import { spawn, type ChildProcess } from 'node:child_process';

export interface Daemon {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts a server process and waits until `ready()` says it answers. */
export async function startDaemon(
  cmd: string,
  args: string[],
  ready: () => Promise<boolean>,
  timeoutMs = 20_000,
): Promise<Daemon> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (d: Buffer) => {
    log = (log + d.toString()).slice(-20_000);
  });
  child.stderr?.on('data', (d: Buffer) => {
    log = (log + d.toString()).slice(-20_000);
  });
  const daemon: Daemon = {
    child,
    output: () => log,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        child.once('exit', () => {
          clearTimeout(killer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${cmd} exited with ${child.exitCode}:\n${log}`);
    // Refused until the daemon listens: asked again.
    if (await ready().catch(() => false)) return daemon;
    await new Promise((r) => setTimeout(r, 100));
  }
  await daemon.stop();
  throw new Error(`${cmd} did not become ready in ${timeoutMs} ms:\n${log}`);
}

export async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
  return res.ok;
}

/** Kills each child still running (SIGKILL, as a crash would) and waits for it to exit. */
export async function killAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map((c) =>
      c.exitCode !== null || c.signalCode !== null
        ? Promise.resolve()
        : new Promise((resolve) => {
            c.once('exit', resolve);
            c.kill('SIGKILL');
          }),
    ),
  );
}

const LESTRADE_BIN = new URL('../../bin/lestrade.js', import.meta.url).pathname;

/**
 * A `lestrade worker` from the sources, with only PATH and `env` in its environment (warn-level logs, output
 * ignored). Its probe port is a free one (LESTRADE_WORKER_PORT=0): workers of test files running side by side
 * must not race for the default port, where the loser exits at start.
 */
export function spawnLestradeWorker(env: Record<string, string | undefined>): ChildProcess {
  return spawn(process.execPath, [LESTRADE_BIN, 'worker'], {
    env: {
      PATH: process.env.PATH ?? '',
      LESTRADE_FROM_SOURCE: '1',
      LESTRADE_WORKER_PORT: '0',
      OPENAI_API_KEY: 'sk-x',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: 'ignore',
  });
}
