import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushAlerts, startAlertmanager, type TestAlertmanager } from '../../helpers/alertmanager.js';
import { freePort } from '../../helpers/free-port.js';
import { amFixture } from '../../helpers/fixtures.js';
import { startScriptedLlm, type ScriptedLlm } from '../../helpers/scripted-llm.js';
import { waitFor } from '../../helpers/service.js';
import { runCli } from '../../helpers/run-cli.js';

const run = runCli;
const BIN = new URL('../../../bin/lestrade.js', import.meta.url).pathname;
const BASE_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LESTRADE_FROM_SOURCE: '1' };

let am: TestAlertmanager;
let llm: ScriptedLlm;

beforeAll(async () => {
  am = await startAlertmanager({ webhookUrl: 'http://127.0.0.1:9/unused', token: 't' });
  await pushAlerts(am.url, [
    {
      labels: { alertname: 'HighLatency', service: 'api', severity: 'critical' },
      annotations: { summary: 'p99 over 1s' },
    },
    {
      labels: { alertname: 'HighLatency', service: 'web', severity: 'warning' },
      annotations: { summary: 'p99 over 1s' },
    },
    { labels: { alertname: 'DiskFull', service: 'db', severity: 'critical' }, annotations: { summary: 'disk 95%' } },
  ]);
  llm = await startScriptedLlm((req) => ({
    content: `RCA for ${/service=(\w+)/.exec(req.messages[1]!.content!)?.[1]}`,
  }));
}, 60_000);
afterAll(async () => {
  await am?.stop();
  await llm?.close();
});

describe('lestrade investigate alertmanager', () => {
  it('investigates the active alerts that match, prints each RCA and writes JSON', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'lestrade-cli-')), 'rca.json');
    const r = await run(
      [
        'investigate',
        'alertmanager',
        '--alertmanager-url',
        am.url,
        '--alertname',
        '^High',
        '--label',
        'severity=critical',
        '--json-output-file',
        out,
      ],
      { OPENAI_API_KEY: 'sk-cli', OPENAI_BASE_URL: llm.baseUrl },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Found 1 active alert to investigate.');
    expect(r.stdout).toContain('# HighLatency: p99 over 1s\n\nRCA for api');
    const json = JSON.parse(readFileSync(out, 'utf8'));
    expect(json).toEqual([
      expect.objectContaining({
        rca: 'RCA for api',
        issue: expect.objectContaining({ labels: expect.objectContaining({ service: 'api' }) }),
        usage: { promptTokens: 100, completionTokens: 10, llmCalls: 1 },
      }),
    ]);
  });

  it('honours -n', async () => {
    const r = await run(['investigate', 'alertmanager', '--alertmanager-url', am.url, '-n', '2'], {
      OPENAI_API_KEY: 'sk-cli',
      OPENAI_BASE_URL: llm.baseUrl,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Found 2 active alerts');
    expect(r.stdout.match(/^RCA for/gm)).toHaveLength(2);
  });

  it('says what is missing when no LLM is configured, and names bad config keys', async () => {
    const noLlm = await run(['investigate', 'alertmanager', '--alertmanager-url', am.url], {});
    expect(noLlm.code).toBe(2);
    expect(noLlm.stderr).toMatch(/no LLM configured: set OPENAI_API_KEY/);
    const bad = await run(['toolsets', 'list'], { LESTRADE_CONCURRENCY: 'lots' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/LESTRADE_CONCURRENCY: expected an integer/);
  });
});

describe('lestrade toolsets list', () => {
  it('shows each toolset with its state and why', async () => {
    const r = await run(['toolsets', 'list'], {
      PROMETHEUS_URL: `http://127.0.0.1:${await freePort()}`,
      KUBECONFIG: '/nonexistent',
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^disabled\s+prometheus\s+prerequisite not met: Prometheus at .* did not answer/m);
    expect(r.stdout).toMatch(/^disabled\s+kubernetes\s+prerequisite not met: .*kubectl/m);
    expect(r.stdout).toMatch(/^disabled\s+runbooks\s+.*set LESTRADE_RUNBOOKS_DIR \(runbooks\.dirs\)/m);
    expect(r.stdout).toMatch(/^disabled\s+loki\s+prerequisite not met: no Loki URL: set LOKI_URL/m);
    expect(r.stdout).toMatch(/^disabled\s+kubernetes_changes\s+prerequisite not met: .*kubectl/m);
    expect(r.stdout).not.toMatch(/^runbooks:/m);
    // One column for the reasons, however long a name (kubernetes_changes is longer than the old 16).
    const starts = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.search(/(prerequisite|switched|\d+ tools)/));
    expect(new Set(starts).size).toBe(1);
  });

  it('says how many runbooks loaded and names each skipped file with its line and why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-runbooks-'));
    writeFileSync(join(dir, 'pool.md'), '---\ntitle: Pool\ndescription: DB pool exhausted\n---\nSteps\n');
    writeFileSync(join(dir, 'broken.md'), '---\ntitle: x\n---\n');
    const r = await run(['toolsets', 'list'], { LESTRADE_RUNBOOKS_DIR: dir, KUBECONFIG: '/nonexistent' });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^runbooks: 1 loaded, 1 skipped$/m);
    expect(r.stdout).toContain(`skipped   runbook ${join(dir, 'broken.md')}:2: description:`);
  }, 120_000);
});

describe('lestrade toolsets list and the bash sandbox', () => {
  it('shows the bash toolset failed, with the fix, when bubblewrap is missing, and enabled when sandbox: none is said', async () => {
    const noBwrap = {
      LESTRADE_BASH_ENABLED: 'true',
      PATH: mkdtempSync(join(tmpdir(), 'lestrade-no-bwrap-')),
      KUBECONFIG: '/nonexistent',
    };
    const failed = await run(['toolsets', 'list'], noBwrap);
    expect(failed.code).toBe(0);
    expect(failed.stdout).toMatch(
      /^failed\s+bash\s+bwrap \(bubblewrap\) is not installed: install bubblewrap \(Debian\/Ubuntu: apt-get install bubblewrap\), or set toolsets\.bash\.sandbox: none \(LESTRADE_BASH_SANDBOX=none\)/m,
    );
    const none = await run(['toolsets', 'list'], { ...noBwrap, LESTRADE_BASH_SANDBOX: 'none' });
    expect(none.stdout).toMatch(/^enabled\s+bash\s+1 tools: bash$/m);
    const bad = await run(['toolsets', 'list'], { ...noBwrap, LESTRADE_BASH_SANDBOX: 'off' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/toolsets\.bash\.sandbox/);
  }, 180_000);
});

describe('lestrade toolsets list with credentials in PROMETHEUS_URL', () => {
  it('never prints the password', async () => {
    const port = await freePort();
    for (const args of [
      ['toolsets', 'list'],
      ['toolsets', 'list', '--json'],
    ]) {
      const r = await run(args, {
        PROMETHEUS_URL: `http://reader:hunter2-pw@127.0.0.1:${port}`,
        KUBECONFIG: '/nonexistent',
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Prometheus at http:\/\/reader:\*\*\*@127\.0\.0\.1:\d+\/ did not answer: ECONNREFUSED/);
      expect(r.stdout + r.stderr).not.toContain('hunter2-pw');
    }
  });
});

describe('lestrade serve', () => {
  it('starts on its defaults with a local redis-server of its own, on loopback, refuses unauthenticated webhooks, and stops cleanly', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'lestrade-data-'));
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        ...BASE_ENV,
        PORT: String(port),
        LESTRADE_LOCAL_REDIS_PORT: String(await freePort()),
        LESTRADE_REDIS_DATA_DIR: dataDir,
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
    try {
      const base = `http://127.0.0.1:${port}`;
      await waitFor(`serve to listen (${logs})`, async () => (await fetch(`${base}/healthz`)).ok, 30_000);
      // Not reachable through any other address of this machine: it listens on loopback only.
      const outside = Object.values(networkInterfaces())
        .flat()
        .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
      if (outside) await expect(fetch(`http://${outside}:${port}/healthz`)).rejects.toThrow();
      const ready = await (await fetch(`${base}/readyz`)).json();
      expect(ready.checks).toMatchObject({ redis: 'ok', llm: expect.stringMatching(/not configured/) });
      const res = await fetch(`${base}/webhooks/alertmanager`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(amFixture('group-next').body),
      });
      expect(res.status).toBe(401);
      expect((await res.json()).error).toMatch(/ALERTMANAGER_WEBHOOK_TOKEN.*ALERTMANAGER_ALLOW_UNAUTHENTICATED=true/);
      expect(logs).toMatch(/started a local redis-server/);
      expect(logs).toContain(`"listening":"http://127.0.0.1:${port} (PORT, HOST), this machine only`);
      expect(logs).toMatch(/set HOST=0\.0\.0\.0 and LESTRADE_API_TOKENS/);
      expect(logs).toMatch(/refuses every delivery \(401\)/);
      expect(existsSync(join(dataDir, 'appendonlydir')) || existsSync(join(dataDir, 'appendonly.aof'))).toBe(true);
    } finally {
      child.kill('SIGTERM');
      const code = await new Promise((r) => child.on('close', r));
      expect(code).toBe(0);
    }
  });
});
