import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { waitFor } from '../../../helpers/service.js';
import { postJson, statusIs } from '../../../helpers/runtime.js';
import { mmId, startMattermostDouble, type MattermostDouble } from '../../../helpers/doubles/mattermost-double.js';
import {
  amDelivery,
  finalWriteBack,
  postAlertmanager,
  serveWithDestinations,
} from '../../../helpers/destinations-harness.js';

/**
 * Alertmanager alerts → investigation (scripted model) → Mattermost, through the real service, queue and Redis,
 * against a Mattermost double that validates every request against Mattermost's own OpenAPI document (a subset).
 */
const h = serviceHarness();
const CHANNEL = mmId();
let mm: MattermostDouble;

beforeEach(async () => {
  mm = await startMattermostDouble();
  mm.state.channels.add(CHANNEL);
});
afterEach(async () => {
  expect(mm.violations).toEqual([]);
  expect(mm.responseViolations).toEqual([]);
  await mm.close();
});

const env = () => ({ MATTERMOST_URL: mm.url, MATTERMOST_TOKEN: mm.token, MATTERMOST_CHANNEL: CHANNEL });
const creates = () => mm.requests.filter((r) => r.operationId === 'CreatePost');

async function oneAlert(fp = 1) {
  const svc = await serveWithDestinations(h, env());
  const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp }]));
  expect(out.queued).toHaveLength(1);
  return { svc, id: out.queued[0] as string };
}

describe("Mattermost: an alert's RCA reaches the routed channel", { timeout: 120_000 }, () => {
  it('posts a parent and the RCA under it (root_id), keyed by props, sanitised, recorded in writeBacks', async () => {
    const { svc, id } = await oneAlert();
    const wb = await finalWriteBack(svc, id, 'mattermost');
    expect(wb).toMatchObject({ status: 'written', target: `mattermost:${CHANNEL}`, error: null });
    const roots = mm.state.roots(CHANNEL);
    expect(roots).toHaveLength(1);
    const parent = roots[0]!;
    const replies = mm.state.replies(parent.id);
    expect(replies).toHaveLength(1);
    const reply = replies[0]!;
    expect(wb.commentId).toBe(reply.id);
    expect(parent.props.lestrade_key).toMatch(/^thread:[0-9a-f]{32}$/);
    expect(reply.props.lestrade_key).toBe(`rca:${id}`);
    expect(reply.user_id).toBe(mm.botId);
    // No mention survives (a word joiner or U+200B after every @); the link to a host nobody named is not live.
    expect(reply.message).not.toMatch(/@(here|channel|all)\b/);
    expect(reply.message).toMatch(/@[\u200b\u2060]here/);
    expect(reply.message).not.toContain('](https://evil.example');
    expect(reply.message).toContain('[dashboard](http://prometheus.example:9090/graph)');
    expect(reply.message).toContain(`[Open in Lestrade](https://lestrade.example/api/investigations/${id})`);
    // No action URL configured: no buttons.
    expect(reply.props.attachments).toBeUndefined();
    expect(parent.message).toContain('1 firing');
    expect(parent.message).toContain('The pod ran out of memory.');
  });

  it('patches the parent in place when the alert resolves, and posts nothing new', async () => {
    const { svc, id } = await oneAlert();
    await finalWriteBack(svc, id, 'mattermost');
    const before = creates().length;
    const parent = mm.state.roots(CHANNEL)[0]!;
    const edits = parent.edits;
    await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 1, status: 'resolved' }]));
    await waitFor('the parent to show resolved', async () => parent.message.includes('Resolved'));
    expect(parent.edits).toBeGreaterThan(edits);
    expect(
      mm.requests.some((r) => r.operationId === 'PatchPost' && r.path === `/api/v4/posts/${parent.id}/patch`),
    ).toBe(true);
    expect(creates()).toHaveLength(before);
    expect(mm.state.roots(CHANNEL)).toHaveLength(1);
  });
});

describe('Mattermost: exactly one post each across faults', { timeout: 120_000 }, () => {
  it('a dropped connection after Mattermost stored the parent, then the reply: found by props, not posted again', async () => {
    mm.faults.add({ method: 'POST', path: /\/api\/v4\/posts$/, kind: 'accept-then-drop', times: 2 });
    const { svc, id } = await oneAlert();
    expect(await finalWriteBack(svc, id, 'mattermost')).toMatchObject({ status: 'written' });
    expect(mm.faults.pending).toEqual([]);
    expect(creates()).toHaveLength(2);
    expect(mm.state.roots(CHANNEL)).toHaveLength(1);
    expect(mm.state.replies(mm.state.roots(CHANNEL)[0]!.id)).toHaveLength(1);
    expect(mm.requests.some((r) => r.operationId === 'GetPostsForChannel')).toBe(true);
    expect(mm.requests.some((r) => r.operationId === 'GetPostThread')).toBe(true);
  });

  it('with buttons: the reply is posted bare once (a drop), then patched with buttons signed for its own id', async () => {
    mm.faults.add({ method: 'POST', path: /\/api\/v4\/posts$/, kind: 'accept-then-drop', times: 2 });
    const svc = await serveWithDestinations(h, {
      ...env(),
      MATTERMOST_ACTION_URL: 'https://lestrade.example/webhooks/mattermost/actions',
      MATTERMOST_ACTION_SECRET: 'x'.repeat(40),
    });
    const out = await postAlertmanager(svc, amDelivery([{ name: 'KubePodOOMKilled', fp: 7 }]));
    const id = out.queued[0] as string;
    expect(await finalWriteBack(svc, id, 'mattermost')).toMatchObject({ status: 'written' });
    const parent = mm.state.roots(CHANNEL)[0]!;
    expect(mm.state.roots(CHANNEL)).toHaveLength(1);
    const replies = mm.state.replies(parent.id);
    expect(replies).toHaveLength(1);
    const attachments = replies[0]!.props.attachments as Array<{ actions: Array<{ name: string; integration: any }> }>;
    expect(attachments.flatMap((a) => a.actions.map((x) => x.name))).toEqual(['Correct', 'Wrong', 'Re-run']);
    for (const a of attachments[0]!.actions) expect(a.integration.context).toMatchObject({ i: id, p: replies[0]!.id });
    expect(mm.requests.some((r) => r.operationId === 'GetPostThread')).toBe(true);
  });

  it('502 and 429 (Retry-After) are retried through the queue: one parent, one reply', async () => {
    mm.faults.add(
      { method: 'POST', path: /\/api\/v4\/posts$/, kind: 'status', status: 502 },
      { method: 'POST', path: /\/api\/v4\/posts$/, kind: 'status', status: 429, headers: { 'retry-after': '1' } },
    );
    const { svc, id } = await oneAlert();
    expect(await finalWriteBack(svc, id, 'mattermost')).toMatchObject({ status: 'written' });
    expect(mm.state.roots(CHANNEL)).toHaveLength(1);
    expect(mm.state.replies(mm.state.roots(CHANNEL)[0]!.id)).toHaveLength(1);
  });

  it('a channel the bot cannot post in: failed, naming MATTERMOST_CHANNEL, nothing posted', async () => {
    mm.state.channels.delete(CHANNEL);
    const { svc, id } = await oneAlert();
    const wb = await finalWriteBack(svc, id, 'mattermost');
    expect(wb.status).toBe('failed');
    expect(wb.error).toContain('MATTERMOST_CHANNEL');
    expect(mm.state.posts).toHaveLength(0);
  });
});

describe('Mattermost: follow-up answers in the thread', { timeout: 120_000 }, () => {
  it('each answer posted once (a dropped connection after Mattermost stored the first), sanitised, keyed by props', async () => {
    const { svc, id } = await oneAlert(9);
    await finalWriteBack(svc, id, 'mattermost');
    const parent = mm.state.roots(CHANNEL)[0]!;
    const answers = () => mm.state.replies(parent.id).filter((p) => String(p.props.lestrade_key).startsWith('answer:'));
    mm.faults.add({ method: 'POST', path: /\/api\/v4\/posts$/, kind: 'accept-then-drop', times: 1 });
    expect((await postJson(`${svc.base}/api/investigations/${id}/ask`, { question: 'First? @all' })).status).toBe(202);
    await statusIs(svc.base, id, ['answered'], 20_000, true);
    await waitFor('the fault to be used', async () => mm.faults.pending.length === 0);
    expect((await postJson(`${svc.base}/api/investigations/${id}/ask`, { question: 'Second?' })).status).toBe(202);
    await waitFor('two answers', async () => answers().length === 2);
    await waitFor('the deliveries to settle', async () => creates().length === 4);
    expect(answers().map((a) => a.props.lestrade_key)).toEqual([`answer:${id}:0`, `answer:${id}:1`]);
    expect(answers()[0]!.message).toContain('First? @\u2060all');
    expect(answers()[0]!.message).not.toMatch(/@(here|channel|all)\b/);
    expect(mm.state.replies(parent.id)).toHaveLength(3);
    expect(mm.state.roots(CHANNEL)).toHaveLength(1);
  });
});
