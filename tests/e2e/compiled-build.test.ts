import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { amFixture } from '../helpers/fixtures.js';
import { freePort } from '../helpers/free-port.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startScriptedLlm } from '../helpers/scripted-llm.js';
import { waitFor } from '../helpers/service.js';

/**
 * The production path from a fresh clone: `npm start` (scripts/start.sh) compiles to dist/ and runs
 * it; the compiled service then also runs with production dependencies only (no tsx, no TypeScript).
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
let redis: TestRedis;
let clone: string;

/** The files a clone has: tracked ones plus new ones not ignored (uncommitted work under test). */
function cloneWorkTree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-clone-'));
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  for (const f of files) {
    if (!existsSync(join(ROOT, f))) continue; // deleted, not yet committed
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    cpSync(join(ROOT, f), join(dir, f));
  }
  return dir;
}

/**
 * A node_modules folder of links to ours: every top-level entry, or only what `npm ci --omit=dev`
 * would install. A real folder of links, never a link to ours: npm ci in the clone must not be
 * able to empty our own. The copied .package-lock.json marks it installed (start.sh checks it).
 */
function linkModules(target: string, only: 'all' | 'production'): void {
  mkdirSync(target);
  const names =
    only === 'all'
      ? readdirSync(join(ROOT, 'node_modules')).flatMap((n) =>
          n.startsWith('@') ? readdirSync(join(ROOT, 'node_modules', n)).map((m) => `${n}/${m}`) : [n],
        )
      : execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' })
          .split('\n')
          .map((p) => relative(join(ROOT, 'node_modules'), p))
          .filter((p) => p && !p.startsWith('..') && !p.includes('node_modules'))
          .map((p) => (p.startsWith('@') ? p.split('/').slice(0, 2).join('/') : p.split('/')[0]!));
  for (const name of new Set(names)) {
    if (name === '.package-lock.json') continue;
    mkdirSync(dirname(join(target, name)), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), join(target, name));
  }
  copyFileSync(join(ROOT, 'node_modules', '.package-lock.json'), join(target, '.package-lock.json'));
}

/** Removes a folder made by linkModules: the links only, never what they point at. */
function unlinkModules(target: string): void {
  for (const name of readdirSync(target)) {
    const path = join(target, name);
    if (lstatSync(path).isSymbolicLink() || !lstatSync(path).isDirectory()) unlinkSync(path);
    else unlinkModules(path);
  }
  rmdirSync(target);
}

async function serveUntilHealthy(
  cmd: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; logs: () => string; base: string }> {
  const port = await freePort();
  const child = spawn(cmd, args, {
    cwd: clone,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      REDIS_URL: redis.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let logs = '';
  child.stdout.on('data', (d: Buffer) => {
    logs += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    logs += d.toString();
  });
  const base = `http://127.0.0.1:${port}`;
  await waitFor('the service to answer /healthz', async () => (await fetch(`${base}/healthz`)).ok, 90_000).catch(
    (err: Error) => {
      child.kill('SIGKILL');
      throw new Error(`${err.message}\n${logs}`);
    },
  );
  return { child, logs: () => logs, base };
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  child.kill('SIGTERM');
  return exited;
}

beforeAll(async () => {
  redis = await startRedis();
  clone = cloneWorkTree();
});
afterAll(async () => {
  await redis?.stop();
  if (clone && existsSync(join(clone, 'node_modules'))) unlinkModules(join(clone, 'node_modules'));
  if (clone) rmSync(clone, { recursive: true, force: true });
});

describe('the compiled build, from a fresh clone', () => {
  it('npm start compiles to dist/ and serves; the compiled service runs with production dependencies only', async () => {
    expect(JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')).dependencies.tsx).toBeUndefined();
    linkModules(join(clone, 'node_modules'), 'all');
    const started = await serveUntilHealthy('sh', ['scripts/start.sh'], { ALERTMANAGER_WEBHOOK_TOKEN: 'built-token' });
    try {
      expect(started.logs()).toMatch(/compiling to dist/);
      expect(existsSync(join(clone, 'dist', 'cli', 'main.js'))).toBe(true);
      // Every file the code reads beside itself (new URL('./x.yaml', import.meta.url)) is in dist/ too: the eval
      // runner's tool aliases were once left behind, and the built CLI loaded none (issue 36).
      const built = execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          "const m = await import('./dist/cli/eval/tool-aliases.js'); console.log(m.loadAliases([]).size)",
        ],
        { cwd: clone, encoding: 'utf8' },
      );
      expect(Number(built.trim())).toBeGreaterThan(10);
      const res = await fetch(`${started.base}/webhooks/alertmanager`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer built-token' },
        body: JSON.stringify(amFixture('group-next').body),
      });
      expect(res.status).toBe(200);
      expect((await res.json()).queued).toHaveLength(2);
    } finally {
      expect(await stop(started.child)).toBe(0);
    }

    unlinkModules(join(clone, 'node_modules'));
    linkModules(join(clone, 'node_modules'), 'production');
    expect(existsSync(join(clone, 'node_modules', 'tsx'))).toBe(false);
    expect(existsSync(join(clone, 'node_modules', 'typescript'))).toBe(false);
    const llm = await startScriptedLlm(() => ({ content: '## Root cause\ncompiled' }));
    const compiled = await serveUntilHealthy(process.execPath, ['bin/lestrade.js', 'serve'], {
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: llm.baseUrl,
    });
    try {
      expect((await (await fetch(`${compiled.base}/readyz`)).json()).checks).toEqual({ redis: 'ok', llm: 'ok' });
      // The two queued alerts are investigated: the prompts' templates are found from dist/.
      const items = await waitFor(
        'the queued investigations to complete',
        async () => {
          const list = (await (await fetch(`${compiled.base}/api/investigations`)).json()).items as Array<{
            status: string;
          }>;
          return list.length === 2 && list.every((i) => i.status === 'completed') && list;
        },
        30_000,
      );
      expect(items).toHaveLength(2);
      expect(llm.requests[0]!.messages[1]!.content).toMatch(/## Alert explanation/);
    } finally {
      expect(await stop(compiled.child)).toBe(0);
      await llm.close();
    }
  }, 180_000);
});
