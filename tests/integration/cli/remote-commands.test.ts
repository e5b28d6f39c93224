import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../helpers/free-port.js';
import { deliverOne, runtimeConfig } from '../../helpers/runtime.js';
import { runCli } from '../../helpers/run-cli.js';
import { startScriptedLlm, toolResults, type Script } from '../../helpers/scripted-llm.js';
import { serviceHarness } from '../../helpers/service-harness.js';
import { startTestService, waitFor } from '../../helpers/service.js';

const h = serviceHarness();
const TOKEN = 'cli-token-1';
const VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

const lastUser = (req: { messages: Array<{ role: string; content?: string | null }> }) =>
  req.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';

/** Asks to restart first (a side-effecting call: the run pauses); answers in Markdown once it is decided. */
const script: Script = (req) => {
  const q = lastUser(req);
  if (q.includes('Follow-up question')) return { content: `**Because** the pool ran dry (${q.split('\n').at(-1)})` };
  const results = toolResults(req);
  if (results.length === 0) return { toolCalls: [{ id: 'c-restart', name: 'restart', arguments: { name: 'api' } }] };
  const { status, feedback } = results[0]!.result as { status: string; feedback?: string };
  return {
    content: `## Root cause\n\nThe **database** pool.\n\n- restart: ${status}${feedback ? ` (${feedback})` : ''}`,
  };
};

async function serve() {
  const rt = runtimeConfig();
  h.llm = await startScriptedLlm(script);
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: h.llm.baseUrl,
    LESTRADE_CONFIG: rt.config,
    LESTRADE_API_TOKEN: TOKEN,
  });
  return { base: h.svc.base, env: { LESTRADE_URL: h.svc.base, LESTRADE_API_TOKEN: TOKEN }, rt };
}

async function api(base: string, path: string): Promise<any> {
  return (await fetch(`${base}/api${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json();
}

const until = (base: string, id: string, what: (inv: any) => boolean) =>
  waitFor(`investigation ${id}`, async () => {
    const inv = await api(base, `/investigations/${id}`);
    return what(inv) && inv;
  });

// Each command is a fresh Node process running the TypeScript sources: seconds each on a busy machine.
describe('lestrade CLI against a running service', { timeout: 240_000 }, () => {
  it('prints its version from package.json, and names the fix when the service is not there', async () => {
    expect((await runCli(['--version'], {})).stdout.trim()).toBe(VERSION);
    const url = `http://127.0.0.1:${await freePort()}`;
    const r = await runCli(['list'], { LESTRADE_URL: url });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`not reachable at ${url}`);
    expect(r.stderr).toMatch(/start it .*LESTRADE_URL/);
  });

  it("lists, shows a pending approval, approves it (recorded as the token's name), and shows the RCA", async () => {
    const { base, env } = await serve();
    const noToken = await runCli(['list', '--url', base], {});
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toMatch(/401\).*set LESTRADE_API_TOKEN/);

    const id = await deliverOne(base);
    await until(base, id, (inv) => inv.status === 'awaiting_approval');
    const listed = await runCli(['list', '--json', '--status', 'awaiting_approval,running', '--since', '1h'], env);
    expect(listed.stderr).toBe('');
    expect(JSON.parse(listed.stdout).map((i: { id: string }) => i.id)).toEqual([id]);
    expect(JSON.parse((await runCli(['list', '--json', '--status', 'completed'], env)).stdout)).toEqual([]);
    const table = (await runCli(['list', '--severity', 'critical'], env)).stdout.split('\n');
    expect(table[0]).toMatch(/^ID\s+STATUS\s+SEVERITY\s+SOURCE\s+CREATED\s+TITLE$/);
    // Ids are listed short (issue 29), and every command takes the short id.
    const short = id.slice(0, 8);
    expect(table[1]).toMatch(new RegExp(`^${short}\\s+awaiting_approval\\s+critical\\s+alertmanager\\s+`));

    const waiting = await runCli(['show', short], env);
    expect(waiting.stdout).toContain('Awaiting approval');
    expect(waiting.stdout).toMatch(/c-restart\s+restart \{"name":"api"\}\n\s+why: .*side effects/);
    expect(waiting.stdout).toContain(`lestrade approve ${id} <call>`);

    const approved = await runCli(['approve', short, 'c-restart', '--reason', 'go ahead'], env);
    expect(approved).toMatchObject({
      code: 0,
      stdout: 'approved c-restart; every pending call is decided; the investigation resumes\n',
    });
    const done = await until(base, id, (inv) => inv.status === 'completed');
    // The service's one unnamed LESTRADE_API_TOKEN is token-1: the token says who, not the CLI's login name.
    const who = { via: 'cli', user: 'token-1' };
    expect(done.toolCalls).toEqual([expect.objectContaining({ name: 'restart', status: 'no_data', decidedBy: who })]);
    // Who decided is the API's, not the model's.
    expect(JSON.stringify(h.llm!.requests.at(-1))).not.toContain('decidedBy');

    const shown = await runCli(['show', id], env);
    expect(shown.stdout).toContain('Root cause\n\nThe database pool.\n\n• restart: no_data');
    expect(shown.stdout).not.toContain('##');
    expect(shown.stdout).toContain(`approved by ${who.user} via cli`);
    expect(shown.stdout).not.toContain('Awaiting approval');
    expect(JSON.parse((await runCli(['show', id, '--json'], env)).stdout)).toMatchObject({ id, status: 'completed' });
  });

  it("denies with a reason the model receives, and refuses what cannot apply with the service's reason", async () => {
    const { base, env } = await serve();
    const id = await deliverOne(base);
    await until(base, id, (inv) => inv.status === 'awaiting_approval');
    const unknown = await runCli(['deny', id, 'c-nope'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no pending tool call c-nope; pending: c-restart (HTTP 422');
    expect((await runCli(['deny', id, 'c-restart', '--reason', 'not during the sale'], env)).code).toBe(0);
    const done = await until(base, id, (inv) => inv.status === 'completed');
    expect(done.rca).toContain('restart: denied (not during the sale)');
    const late = await runCli(['approve', id, 'c-restart'], env);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain('not awaiting approval (status: completed)');
    // Re-run: queued as run 2 (paused again on the same call); a second one while it is unfinished is refused.
    const rerun = await runCli(['rerun', id], env);
    expect(rerun).toMatchObject({ code: 0, stderr: '' });
    expect(rerun.stdout).toBe(`re-run queued: run 2 (${id}-rerun-2); follow it with \`lestrade show ${id}\`\n`);
    await until(base, id, (inv) => inv.status === 'awaiting_approval' && inv.run === 2);
    const again = await runCli(['rerun', id], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('can be re-run (status: awaiting_approval) (HTTP 409');
    const badSince = await runCli(['list', '--since', 'last tuesday'], env);
    expect(badSince.code).toBe(1);
    expect(badSince.stderr).toMatch(/since: "last tuesday" is neither a duration .* \(HTTP 400/);
  });

  it('asks a follow-up question and prints the answer once it is there', async () => {
    const { base, env } = await serve();
    const id = await deliverOne(base);
    await until(base, id, (inv) => inv.status === 'awaiting_approval');
    await runCli(['approve', id, 'c-restart'], env);
    await until(base, id, (inv) => inv.status === 'completed');
    const asked = await runCli(['ask', id, 'Why the pool?', '--timeout', '60'], env);
    expect(asked.stderr).toBe('');
    expect(asked).toMatchObject({ code: 0, stdout: 'Because the pool ran dry (Why the pool?)\n' });
    const inv = await api(base, `/investigations/${id}`);
    expect(inv.conversation).toEqual([expect.objectContaining({ question: 'Why the pool?', status: 'answered' })]);
  });
});
