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
