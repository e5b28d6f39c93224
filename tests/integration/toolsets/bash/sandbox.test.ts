import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paramsKey } from '../../../../src/tools/call-key.js';
import { runPipeline } from '../../../../src/tools/run-pipeline.js';
import { resolveToolsets } from '../../../../src/tools/toolset-registry.js';
import { createBashToolset } from '../../../../toolsets/bash/index.js';
import { createSandbox } from '../../../../toolsets/bash/sandbox.js';
import { requireBinary } from '../../../helpers/require-binary.js';

/**
 * Defence in depth under the bash policy (issue 16): whatever runs (allowed, approved, or here run
 * directly, past the policy) runs in bubblewrap and cannot reach Lestrade's secrets: no secret in
 * its environment or in /proc/1/environ, Lestrade's process invisible, nothing writable but /tmp,
 * no host files but the tools', and no network of its own (curl and kubectl go through the egress proxy).
 */
const SECRETS = {
  OPENAI_API_KEY: 'sk-canary-openai',
  GITHUB_TOKEN: 'ghp_canary_github',
  JIRA_API_TOKEN: 'jira-canary',
};
const saved: Record<string, string | undefined> = {};
const hostDir = mkdtempSync(join(tmpdir(), 'lestrade-sandbox-host-'));
const server = createServer((_req, res) => res.end('reached'));
let url = '';

beforeAll(async () => {
  requireBinary('bwrap');
  for (const [k, v] of Object.entries(SECRETS)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  writeFileSync(join(hostDir, 'secret.txt'), 'host-file-canary');
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  server.close();
});

const run = async (argv: string[], readOnlyPaths: string[] = []) => {
  const sandbox = createSandbox({ mode: 'bubblewrap', readOnlyPaths, env: [] });
  const out = await runPipeline([sandbox.wrap(argv)], { timeoutMs: 20_000, maxBytes: 1_000_000, env: sandbox.env });
  return { ...out, all: out.stdout + out.stderr };
};

describe('the bubblewrap sandbox, run directly (past the policy)', () => {
  it('starts here, and says so', async () => {
    expect(await createSandbox({ mode: 'bubblewrap', readOnlyPaths: [], env: [] }).check()).toBeNull();
  });

  it('shows no secret in its environment, in /proc/1/environ (its own pid 1) or in any process it can see', async () => {
    const r = await run([
      'sh',
      '-c',
      'env; echo; for f in /proc/[0-9]*/environ; do echo "$f"; tr "\\0" "\\n" < "$f"; done',
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/\/proc\/1\/environ/);
    expect(r.stdout).toMatch(/^HOME=\/tmp$/m);
    for (const secret of Object.values(SECRETS)) expect(r.all).not.toContain(secret);
    for (const name of Object.keys(SECRETS)) expect(r.all).not.toContain(name);
  });

  it("cannot see Lestrade's process: its /proc holds only the sandbox's own", async () => {
    const r = await run(['sh', '-c', `ls /proc/${process.pid} 2>&1; ls /proc | grep -c '^[0-9]'`]);
    expect(r.stdout).toMatch(/No such file or directory/);
    expect(Number(r.stdout.trim().split('\n').at(-1))).toBeLessThan(10);
  });

  it('writes nowhere but /tmp, which is its own', async () => {
    const r = await run([
      'sh',
      '-c',
      'for p in /x /usr/x /etc/x /proc/x; do touch "$p" 2>/dev/null && echo "wrote $p"; done; touch /tmp/ok && echo "wrote /tmp/ok"',
    ]);
    expect(r.stdout.trim()).toBe('wrote /tmp/ok');
    expect((await run(['sh', '-c', 'ls /tmp'])).stdout.trim()).toBe('');
  });

  it("reads none of the host's files but the tools' (no /etc/passwd, /etc/shadow, /root, host /tmp)", async () => {
    const r = await run([
      'sh',
      '-c',
      `for p in /etc/passwd /etc/shadow /root /home /work ${hostDir}/secret.txt; do test -e "$p" && echo "sees $p"; done; echo done`,
    ]);
    expect(r.stdout.trim()).toBe('done');
    const bound = await run(['cat', join(hostDir, 'secret.txt')], [hostDir]);
    expect(bound.stdout).toBe('host-file-canary');
  });

  it('has no network of its own, curl included: only a run opens the egress proxy (egress.test.ts)', async () => {
    const curl = await run(['curl', '-sS', '--max-time', '5', url]);
    expect(curl.exitCode).not.toBe(0);
    expect(curl.stdout).not.toMatch(/reached/);
    const sandbox = createSandbox({ mode: 'bubblewrap', readOnlyPaths: [], env: [], curlHosts: [new URL(url).host] });
    const opened = await sandbox.open({ programs: ['curl'], approved: false });
    if ('error' in opened) throw new Error(opened.error);
    try {
      const out = await runPipeline([opened.wrap(['curl', '-sS', '--max-time', '5', url])], {
        timeoutMs: 20_000,
        maxBytes: 10_000,
        env: opened.env,
      });
      expect(out.stdout).toBe('reached');
      // The same request from a program that is not curl or kubectl (sh running curl): no network at all.
      const viaSh = await runPipeline([opened.wrap(['sh', '-c', `curl -sS --max-time 5 ${url} || echo unreachable`])], {
        timeoutMs: 20_000,
        maxBytes: 10_000,
        env: opened.env,
      });
      expect(viaSh.stdout).toMatch(/unreachable/);
    } finally {
      await opened.close();
    }
  });

  it('runs the tools: kubectl with the kubeconfig Lestrade pins, awk, jq', async () => {
    const kc = join(hostDir, 'kubeconfig');
    writeFileSync(
      kc,
      'apiVersion: v1\nkind: Config\ncurrent-context: sandboxed\ncontexts: [{name: sandboxed, context: {cluster: c}}, {name: other, context: {cluster: c}}]\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\n',
    );
    const saved = process.env.KUBECONFIG;
    process.env.KUBECONFIG = kc;
    try {
      const sandbox = createSandbox({ mode: 'bubblewrap', readOnlyPaths: [], env: [] });
      const opened = await sandbox.open({ programs: ['kubectl'], approved: false });
      if ('error' in opened) throw new Error(opened.error);
      try {
        const argv = ['kubectl', 'config', 'get-contexts', '-o', 'name'];
        const out = await runPipeline([opened.wrap(argv)], { timeoutMs: 20_000, maxBytes: 10_000, env: opened.env });
        expect(out.stdout).toBe('sandboxed\n');
      } finally {
        await opened.close();
      }
    } finally {
      if (saved === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = saved;
    }
    expect((await run(['awk', 'BEGIN { print 1 + 1 }'])).stdout).toBe('2\n');
    expect((await run(['jq', '-n', '1 + 1'])).stdout).toBe('2\n');
  });
});

describe('the bash tool in its sandbox', () => {
  // Made in each test, after the secrets are in the environment (the sandbox reads it when made).
  const toolset = () =>
    createBashToolset({ allow: [], deny: [], curlHosts: [], timeoutMs: 20_000, maxOutputBytes: 100_000, env: [] });
  const approved = (command: string) => ({
    signal: new AbortController().signal,
    approved: true,
    approvedCall: paramsKey('bash', { command }),
  });

  it("issue 16's chain: even an approved awk of /proc/1/environ (or of Lestrade's own) shows no secret", async () => {
    const tool = toolset().tools[0]!;
    for (const command of [
      "awk '{print}' /proc/1/environ",
      `awk '{print}' /proc/${process.pid}/environ`,
      'head -c 100000 /proc/self/environ',
    ]) {
      const verdict = await tool.verdict!({ command });
      expect(verdict.decision, command).toBe('ask');
      const out = await tool.run({ command }, approved(command));
      for (const secret of Object.values(SECRETS)) expect(JSON.stringify(out), command).not.toContain(secret);
    }
  });

  it('is enabled when bubblewrap works, and fails, with the fix, when it is missing', async () => {
    const ok = await resolveToolsets([toolset()], { bash: { enabled: true } }, {});
    expect(ok.statuses[0]).toMatchObject({ name: 'bash', state: 'enabled' });
    const path = process.env.PATH;
    process.env.PATH = mkdtempSync(join(tmpdir(), 'lestrade-empty-path-'));
    try {
      const missing = createBashToolset({
        allow: [],
        deny: [],
        curlHosts: [],
        timeoutMs: 1_000,
        maxOutputBytes: 1_000,
        env: [],
      });
      const none = createBashToolset({
        allow: [],
        deny: [],
        curlHosts: [],
        timeoutMs: 1_000,
        maxOutputBytes: 1_000,
        env: [],
        sandbox: 'none',
      });
      const r = await resolveToolsets([missing], { bash: { enabled: true } }, {});
      expect(r.statuses[0]).toMatchObject({
        state: 'failed',
        reason: expect.stringMatching(
          /bwrap \(bubblewrap\) is not installed: install bubblewrap .*toolsets\.bash\.sandbox: none/,
        ),
      });
      expect(r.enabled).toEqual([]);
      expect((await resolveToolsets([none], { bash: { enabled: true } }, {})).statuses[0]).toMatchObject({
        state: 'enabled',
      });
    } finally {
      process.env.PATH = path;
    }
  });

  it('fails, with the fix, when socat (the bridge to the egress proxy) is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-no-socat-'));
    symlinkSync(requireBinary('bwrap'), join(dir, 'bwrap'));
    const sandbox = createSandbox({ mode: 'bubblewrap', readOnlyPaths: [], env: [] }, { PATH: dir });
    expect(await sandbox.check()).toMatch(
      /^socat is not installed: install socat \(Debian\/Ubuntu: apt-get install socat\).*toolsets\.bash\.sandbox: none/,
    );
  });

  it('fails, with why, when bubblewrap cannot create its namespaces', async () => {
    // A bwrap that cannot create namespaces, as on a host that forbids them, is stood in by one that always fails so.
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-fake-bwrap-'));
    writeFileSync(join(dir, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', {
      mode: 0o755,
    });
    const sandbox = createSandbox(
      { mode: 'bubblewrap', readOnlyPaths: [], env: [] },
      { PATH: `${dir}:${process.env.PATH}` },
    );
    expect(await sandbox.check()).toMatch(
      /bubblewrap cannot create its namespaces here \(bwrap: No permissions to create new namespace\).*toolsets\.bash\.sandbox: none/,
    );
  });
});
