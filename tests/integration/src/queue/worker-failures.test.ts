import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { amFixture } from '../../../helpers/fixtures.js';
import { startScriptedLlm } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { getJson, startTestService, waitFor, type TestService } from '../../../helpers/service.js';

// What the worker does with failures nobody typed, and with a broken prompt template.

let raw: Server | undefined;

// Registered before serviceHarness(): after-hooks run last-registered first, so as before the
// service and the scripted LLM are closed before this raw LLM server.
afterEach(async () => {
  await new Promise((r) => (raw ? raw.close(r) : r(undefined)));
  raw = undefined;
});
const h = serviceHarness();

const alert = (labels: Record<string, string>, fingerprint = '0123456789abcdef') => {
  const body = amFixture('group-next').body;
  return {
    ...body,
    alerts: [{ ...body.alerts[0]!, fingerprint, labels: { ...(body.alerts[0]!.labels as object), ...labels } }],
  };
};

async function deliver(s: TestService, body: unknown): Promise<string> {
  const res = await fetch(`${s.base}/webhooks/alertmanager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return ((await res.json()) as { queued: string[] }).queued[0]!;
}

const settled = (s: TestService, id: string) =>
  waitFor(
    'the investigation to settle',
    async () => {
      const inv = (await getJson(`${s.base}/api/investigations/${id}`)).body;
      return (inv.status === 'completed' || inv.status === 'failed') && inv;
    },
    20_000,
  );

const BIN = new URL('../../../../bin/lestrade.js', import.meta.url).pathname;

/** Runs the lestrade binary; one still running after ms is killed (it should have stopped). */
function runCliWithin(
  args: string[],
  env: Record<string, string>,
  ms: number,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

function templatesDir(investigate: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-tpl-'));
  writeFileSync(join(dir, 'investigate.jinja2'), investigate);
  return dir;
}

describe('a failure the loop did not type', () => {
  it('is retried like any transient fault: an LLM reply with no choices, then a good one', async () => {
    // A Chat Completions server that once answers 200 with no choices (a flaky proxy, say).
    let calls = 0;
    raw = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        calls += 1;
        const choices =
          calls === 1
            ? []
            : [
                {
                  index: 0,
                  message: { role: 'assistant', content: 'RCA after an empty reply', refusal: null },
                  finish_reason: 'stop',
                  logprobs: null,
                },
              ];
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: `c${calls}`,
            object: 'chat.completion',
            created: 0,
            model: 'm',
            choices,
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      });
    });
    await new Promise<void>((r) => raw!.listen(0, '127.0.0.1', () => r()));
    const config = join(mkdtempSync(join(tmpdir(), 'lestrade-cfg-')), 'lestrade.yaml');
    writeFileSync(config, 'queue: { backoffMs: 100 }\n');
    h.svc = await startTestService(h.redis.url, {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`,
      LESTRADE_LLM_MAX_RETRIES: '0',
      LESTRADE_CONFIG: config,
    });
    const inv = await settled(h.svc, await deliver(h.svc, alert({})));
    expect(inv).toMatchObject({ status: 'completed', rca: 'RCA after an empty reply', attempts: 2 });
    expect(h.svc.logs.find((l) => l.msg === 'investigation will be retried')?.err).toMatch(
      /LLM call failed: the model returned no choices/,
    );
  });
});

describe('a broken prompt template', () => {
  it('stops `lestrade worker` at start-up with exit code 2, naming the template and the line', async () => {
    const dir = templatesDir('Investigate {{ issue.title }}\nLabels: {{ issue.labels }\n');
    const r = await runCliWithin(
      ['worker'],
      {
        REDIS_URL: h.redis.url,
        OPENAI_API_KEY: 'sk-test',
        LESTRADE_TEMPLATES_DIR: dir,
        LOG_LEVEL: 'silent',
        LESTRADE_WORKER_PORT: '0',
      },
      15_000,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `lestrade: template investigate.jinja2 (${join(dir, 'investigate.jinja2')}), line 2: expected variable end`,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('that fails only for some issues fails their investigation at once, naming the template and the line', async () => {
    h.llm = await startScriptedLlm(() => ({ content: 'an RCA' }));
    // Renders for the sample issue (no "team" label), breaks on an issue that has one.
    const dir = templatesDir(
      'Investigate {{ issue.title }}\n{% if issue.labels.team %}\nOwner: {{ issue.labels.team.owner() }}\n{% endif %}\n',
    );
    h.svc = await startTestService(h.redis.url, {
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: h.llm.baseUrl,
      LESTRADE_TEMPLATES_DIR: dir,
    });
    const broken = await settled(h.svc, await deliver(h.svc, alert({ team: 'payments' })));
    expect(broken).toMatchObject({ status: 'failed', attempts: 1 });
    expect(broken.error).toBe(
      `template investigate.jinja2 (${join(dir, 'investigate.jinja2')}), line 3: Unable to call \`issue["labels"]["team"]["owner"]\`, which is undefined or falsey`,
    );
    expect(h.llm.requests).toHaveLength(0);
    expect(h.svc.logs.some((l) => l.msg === 'investigation will be retried')).toBe(false);
    const fine = await settled(h.svc, await deliver(h.svc, alert({}, 'fedcba9876543210')));
    expect(fine).toMatchObject({ status: 'completed', rca: 'an RCA' });
  });
});
