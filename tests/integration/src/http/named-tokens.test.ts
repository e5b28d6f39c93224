import { describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { deliverOne, runtimeConfig } from '../../../helpers/runtime.js';
import { runCli } from '../../../helpers/run-cli.js';
import { startScriptedLlm, toolResults, type Script } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { startTestService, waitFor } from '../../../helpers/service.js';

// Who decided is the name of the token used (LESTRADE_API_TOKENS=alice:<token>,...), by API, CLI and
// dashboard alike, whatever the caller says it is; a token never appears in a record, log or answer.

const h = serviceHarness();
const ALICE = 'alice-token-0123456789';
const BOB = 'bob-token-9876543210';
const OLD = 'old-style-token-5555';

/** Three side-effecting calls in one turn, each to be decided by someone else; then an answer. */
const threeWrites: Script = (req) =>
  toolResults(req).length === 0
    ? {
        toolCalls: ['a', 'b', 'c'].map((n) => ({ id: `c-${n}`, name: 'restart', arguments: { name: `svc-${n}` } })),
      }
    : { content: '## Root cause\ndecided' };

async function serve() {
  const rt = runtimeConfig();
  h.llm = await startScriptedLlm(threeWrites);
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: h.llm.baseUrl,
    LESTRADE_CONFIG: rt.config,
    LESTRADE_API_TOKENS: `alice:${ALICE},bob:${BOB}`,
    LESTRADE_API_TOKEN: OLD,
  });
  return h.svc;
}

async function api(path: string, token: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${h.svc!.base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

/** Signs in to the dashboard with a token: the session cookie and the session as Redis holds it. */
async function signIn(token: string): Promise<{ cookie: string; session: { csrf: string; name?: string } }> {
  const base = h.svc!.base;
  const res = await fetch(`${base}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base },
    body: new URLSearchParams({ token }).toString(),
  });
  expect(res.status).toBe(303);
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  const stored = await h.admin.get(keys.session(cookie.slice(cookie.indexOf('=') + 1)));
  return { cookie, session: JSON.parse(stored!) };
}

describe('named API tokens', { timeout: 90_000 }, () => {
  it('records the token name as who decided, by API, CLI and dashboard, never what the caller claims', async () => {
    const s = await serve();
    const id = await deliverOne(s.base);
    await waitFor('the approvals', async () => (await api(`/api/investigations/${id}`, BOB)).body.approvals);

    // The API, claiming to be someone else: recorded as bob, via what it said it was.
    const byApi = await api(`/api/investigations/${id}/approvals`, BOB, {
      decisions: [{ toolCallId: 'c-a', approved: false, feedback: 'not now' }],
      decidedBy: { via: 'cli', user: 'mallory', name: 'Mallory' },
    });
    expect(byApi).toMatchObject({ status: 202, body: { status: 'awaiting_approval' } });

    // The CLI with alice's token: its local login name is not what is recorded.
    const cli = await runCli(['approve', id, 'c-b', '--url', s.base], { LESTRADE_API_TOKEN: ALICE });
    expect(cli.stderr).toBe('');
    expect(cli.code).toBe(0);

    // The dashboard, signed in with the old unnamed token: its session carries the name, not the token.
    const { cookie, session } = await signIn(OLD);
    expect(session.name).toBe('token-1');
    expect(JSON.stringify(session)).not.toContain(OLD);
    const byDashboard = await fetch(`${s.base}/api/investigations/${id}/approvals`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': session.csrf, origin: s.base, 'content-type': 'application/json' },
      body: JSON.stringify({ decisions: [{ toolCallId: 'c-c', approved: true }] }),
    });
    expect(byDashboard.status).toBe(202);

    const done = await waitFor('the run to finish', async () => {
      const inv = (await api(`/api/investigations/${id}`, ALICE)).body;
      return inv.status === 'completed' && inv;
    });
    const by = Object.fromEntries(
      done.toolCalls.map((t: { params: { name: string }; decidedBy?: unknown }) => [t.params.name, t.decidedBy]),
    );
    expect(by).toEqual({
      'svc-a': { via: 'cli', user: 'bob' },
      'svc-b': { via: 'cli', user: 'alice' },
      'svc-c': { via: 'dashboard', user: 'token-1' },
    });
    const everything = JSON.stringify([done, s.logs, await h.admin.keys('*')]);
    for (const token of [ALICE, BOB, OLD]) expect(everything).not.toContain(token);
  });

  it('names who cancelled in the log; a wrong token opens nothing', async () => {
    const s = await serve();
    const id = await deliverOne(s.base);
    await waitFor('the approvals', async () => (await api(`/api/investigations/${id}`, BOB)).body.approvals);
    expect((await api(`/api/investigations/${id}`, 'not-a-token')).status).toBe(401);
    expect((await api(`/api/investigations/${id}/cancel`, 'not-a-token', {})).status).toBe(401);
    expect((await api(`/api/investigations/${id}/cancel`, ALICE, {})).status).toBe(200);
    expect(s.logs.find((l) => l.msg === 'investigation cancelled')).toMatchObject({ id, by: 'alice', via: 'api' });
  });
});
