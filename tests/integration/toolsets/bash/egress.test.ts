import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paramsKey } from '../../../../src/tools/call-key.js';
import { runPipeline } from '../../../../src/tools/run-pipeline.js';
import { createBashToolset } from '../../../../toolsets/bash/index.js';
import { createSandbox } from '../../../../toolsets/bash/sandbox.js';
import { requireBinary } from '../../../helpers/require-binary.js';
import { selfSigned } from '../../../helpers/self-signed.js';

/**
 * issue 30: what curl reaches is decided by the operating system, not by reading its command line.
 * Each stage runs in a network namespace of its own; curl's one way out is Lestrade's egress proxy,
 * which connects to toolsets.bash.curlHosts only. Two real loopback listeners: ALLOWED (configured)
 * and OFF (not configured, listening on every address, IPv4 and IPv6). Whatever the URL syntax or
 * curl option, run past the policy, OFF is never reached; ALLOWED is.
 */
interface Seen {
  method: string;
  url: string;
}
const seen: { allowed: Seen[]; off: Seen[] } = { allowed: [], off: [] };
const listener = (into: Seen[], body: string) =>
  createServer((req: IncomingMessage, res) => {
    into.push({ method: req.method ?? '', url: req.url ?? '' });
    res.end(body);
  });
const allowedServer = listener(seen.allowed, 'reached-allowed');
const offServer = listener(seen.off, 'reached-off');
let A = 0;
let OFF = 0;

const listen = (s: Server, host: string) =>
  new Promise<number>((resolve) => s.listen(0, host, () => resolve((s.address() as AddressInfo).port)));

beforeAll(async () => {
  requireBinary('bwrap');
  requireBinary('socat');
  A = await listen(allowedServer, '127.0.0.1');
  OFF = await listen(offServer, '::');
});
afterAll(() => {
  allowedServer.close();
  offServer.close();
});

const sandbox = () => createSandbox({ mode: 'bubblewrap', readOnlyPaths: [], env: [], curlHosts: [`127.0.0.1:${A}`] });

/** curl with these arguments in the sandbox, past the policy (as an approved or mis-judged line would run). */
async function curlInSandbox(args: string[], approved = false) {
  const run = await sandbox().open({ programs: ['curl'], approved });
  if ('error' in run) throw new Error(run.error);
  try {
    const argv = ['curl', '-sS', '--max-time', '5', ...args];
    const out = await runPipeline([run.wrap(argv)], { timeoutMs: 20_000, maxBytes: 100_000, env: run.env });
    return out.stdout + out.stderr;
  } finally {
    await run.close();
  }
}

describe('the egress boundary, past the policy', () => {
  it('reaches a configured host:port', async () => {
    expect(await curlInSandbox([`http://127.0.0.1:${A}/api/v1/alerts`])).toBe('reached-allowed');
    expect(seen.allowed.at(-1)).toEqual({ method: 'GET', url: '/api/v1/alerts' });
  });

  it('the hostile forms do reach the off-list listener without the sandbox (so the test below can fail)', async () => {
    const url = `http://127.0.0.1:${A}\\@127.0.0.1:${OFF}/exfil`;
    const { stdout } = await promisify(execFile)('curl', ['-sS', '--max-time', '5', url], { encoding: 'utf8' });
    expect(stdout).toBe('reached-off');
    seen.off.length = 0;
  });

  const forms = () => [
    [`http://127.0.0.1:${A}\\@127.0.0.1:${OFF}/exfil`],
    [`http://127.0.0.1:${A}@127.0.0.1:${OFF}/`],
    [`http://[::ffff:127.0.0.1]:${OFF}/`],
    [`http://[::1]:${OFF}/`],
    [`http://2130706433:${OFF}/`],
    [`http://0x7f.1:${OFF}/`],
    [`http://0177.0.0.1:${OFF}/`],
    [`http://localhost:${OFF}/`],
    [`https://127.0.0.1:${OFF}/`],
    [`127.0.0.1:${OFF}/`],
    ['--connect-to', `127.0.0.1:${A}:127.0.0.1:${OFF}`, `http://127.0.0.1:${A}/`],
    ['--resolve', `allowed.test:${OFF}:127.0.0.1`, `http://allowed.test:${OFF}/`],
    ['-x', `http://127.0.0.1:${OFF}`, `http://127.0.0.1:${A}/`],
    ['--noproxy', '*', `http://127.0.0.1:${OFF}/`],
    ['--preproxy', `socks5://127.0.0.1:${OFF}`, `http://127.0.0.1:${A}/`],
    ['--socks5-hostname', `127.0.0.1:${OFF}`, `http://127.0.0.1:${A}/`],
    ['-p', `http://127.0.0.1:${OFF}/`],
  ];

  it('reaches no other host:port, whatever the URL syntax or curl option', async () => {
    for (const args of forms()) {
      const out = await curlInSandbox(args);
      expect(out, args.join(' ')).not.toContain('reached-off');
      expect(seen.off, args.join(' ')).toEqual([]);
    }
  });

  it('tunnels HTTPS (CONNECT) to a configured host:port, and to nothing else', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-egress-tls-'));
    const tls = selfSigned(dir);
    const secure = createHttpsServer(tls, (_req, res) => res.end('reached-tls'));
    const port = await listen(secure, '127.0.0.1');
    try {
      const both = createSandbox({
        mode: 'bubblewrap',
        readOnlyPaths: [dir],
        env: [],
        curlHosts: [`127.0.0.1:${port}`],
      });
      const run = await both.open({ programs: ['curl'], approved: false });
      if ('error' in run) throw new Error(run.error);
      try {
        const get = (url: string) =>
          runPipeline([run.wrap(['curl', '-sS', '--max-time', '5', '--cacert', tls.certFile, url])], {
            timeoutMs: 20_000,
            maxBytes: 10_000,
            env: run.env,
          });
        expect((await get(`https://127.0.0.1:${port}/`)).stdout).toBe('reached-tls');
        expect((await get(`https://127.0.0.1:${A}/`)).stderr).toMatch(/CONNECT tunnel failed, response 403/);
      } finally {
        await run.close();
      }
    } finally {
      secure.close();
    }
  });

  it('says why, naming the key to change', async () => {
    expect(await curlInSandbox([`http://127.0.0.1:${OFF}/`])).toBe(
      `lestrade egress proxy: 127.0.0.1:${OFF} is not an allowed destination: add "127.0.0.1:${OFF}" to toolsets.bash.curlHosts to reach it\n`,
    );
  });

  it('lets no method but GET or HEAD reach the server over plain HTTP, however -X is repeated (defect 2)', async () => {
    seen.allowed.length = 0;
    for (const args of [
      ['-X', 'GET', '-X', 'DELETE'],
      ['--request', 'GET', '--request', 'PUT'],
      ['-XGET', '-XPOST'],
      ['-d', 'x=1'],
      ['--json', '{}'],
    ]) {
      const out = await curlInSandbox([...args, `http://127.0.0.1:${A}/api/v2/silences/all`]);
      expect(out, args.join(' ')).toMatch(/refused: only GET and HEAD without a human's approval/);
    }
    expect(seen.allowed).toEqual([]);
    expect(await curlInSandbox(['-I', `http://127.0.0.1:${A}/`])).toMatch(/^HTTP\/1.1 200/);
    expect(seen.allowed).toEqual([{ method: 'HEAD', url: '/' }]);
  });

  it('lets an approved line use another method, to the same hosts only', async () => {
    seen.allowed.length = 0;
    expect(await curlInSandbox(['-X', 'DELETE', `http://127.0.0.1:${A}/x`], true)).toBe('reached-allowed');
    expect(seen.allowed).toEqual([{ method: 'DELETE', url: '/x' }]);
    expect(await curlInSandbox(['-X', 'DELETE', `http://127.0.0.1:${OFF}/x`], true)).not.toContain('reached');
    expect(seen.off).toEqual([]);
  });

  it('matches the name asked for, as configured, and resolves it itself; the address it resolves to is not on the list', async () => {
    const byName = createSandbox({ mode: 'bubblewrap', readOnlyPaths: [], env: [], curlHosts: [`localhost:${A}`] });
    const fetchVia = async (target: string) => {
      const run = await byName.open({ programs: ['curl'], approved: false });
      if ('error' in run) throw new Error(run.error);
      try {
        const out = await runPipeline([run.wrap(['curl', '-sS', '--max-time', '5', target])], {
          timeoutMs: 20_000,
          maxBytes: 10_000,
          env: run.env,
        });
        return out.stdout + out.stderr;
      } finally {
        await run.close();
      }
    };
    expect(await fetchVia(`http://localhost:${A}/`)).toBe('reached-allowed');
    expect(await fetchVia(`http://127.0.0.1:${A}/`)).toMatch(/127\.0\.0\.1:\d+ is not an allowed destination/);
  });

  it('gives a program that is not curl or kubectl no network at all, even with the proxy variables', async () => {
    const run = await sandbox().open({ programs: ['sh'], approved: true });
    if ('error' in run) throw new Error(run.error);
    try {
      const script = `http_proxy=http://127.0.0.1:3128 curl -sS --max-time 5 http://127.0.0.1:${A}/ || echo unreachable`;
      const out = await runPipeline([run.wrap(['sh', '-c', script])], {
        timeoutMs: 20_000,
        maxBytes: 10_000,
        env: run.env,
      });
      expect(out.stdout).toMatch(/unreachable/);
      expect(out.stdout).not.toContain('reached-allowed');
    } finally {
      await run.close();
    }
  });
});

describe('the egress boundary through the bash tool', () => {
  const toolset = (extra: Record<string, unknown> = {}) =>
    createBashToolset({
      allow: [],
      deny: [],
      curlHosts: [`127.0.0.1:${A}`],
      timeoutMs: 20_000,
      maxOutputBytes: 100_000,
      env: [],
      ...extra,
    });
  const ctx = { signal: new AbortController().signal, approved: false };

  it("issue 30's chain: the allowed host is reached, the \\@ form and -X GET -X DELETE are refused and reach nothing", async () => {
    seen.allowed.length = 0;
    const tool = toolset().tools[0]!;
    expect(await tool.run({ command: `curl -s http://127.0.0.1:${A}/ok` }, ctx)).toEqual({
      status: 'success',
      data: 'reached-allowed',
      // Read from an outside system (curl), so it may vouch for links (docs/security.md).
      vouches: true,
    });
    for (const command of [
      `curl -s "http://127.0.0.1:${A}\\@127.0.0.1:${OFF}/exfil"`,
      `curl -X GET -X DELETE http://127.0.0.1:${A}/api/v2/silences/all`,
      `curl -s --noproxy '*' http://127.0.0.1:${OFF}/`,
    ]) {
      const approved = { ...ctx, approved: true, approvedCall: paramsKey('bash', { command }) };
      expect(await tool.run({ command }, approved), command).toMatchObject({
        status: 'error',
        error: expect.stringMatching(/^refused: /),
      });
    }
    expect(seen.allowed).toEqual([{ method: 'GET', url: '/ok' }]);
    expect(seen.off).toEqual([]);
  });

  it('runs no more sandboxes at once than toolsets.bash.maxSandboxes (defect 7)', async () => {
    const peak = async (maxSandboxes: number) => {
      let now = 0;
      let max = 0;
      const slow = createServer((_req, res) => {
        max = Math.max(max, ++now);
        setTimeout(() => {
          now--;
          res.end('slow');
        }, 1500);
      });
      const port = await listen(slow, '127.0.0.1');
      try {
        const tool = toolset({ curlHosts: [`127.0.0.1:${port}`], maxSandboxes, maxStages: 1 }).tools[0]!;
        const calls = [1, 2, 3].map(() => tool.run({ command: `curl -s http://127.0.0.1:${port}/` }, ctx));
        for (const out of await Promise.all(calls))
          expect(out).toEqual({ status: 'success', data: 'slow', vouches: true });
        return max;
      } finally {
        slow.close();
      }
    };
    expect(await peak(3)).toBe(3);
    expect(await peak(2)).toBe(2);
  });
});
