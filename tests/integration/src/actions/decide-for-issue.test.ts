import { describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { decideForIssue } from '../../../../src/actions/decide-for-issue.js';
import { approvalRecords } from '../../../helpers/approval-records.js';
import { ticketIssue } from '../../../helpers/ticket-issue.js';

// A decision written on a ticket (`/lestrade approve <call>`): which of the ticket's investigations it
// decides, what it leaves out, and the answer the comment gets.

const r = approvalRecords();
const deps = () => ({ store: r.store, runs: r.runs, continuations: r.continuations });
const approve = (toolCallId: string) => ({ toolCallId, approved: true });
/** A re-investigation of ticket `first` (`/lestrade investigate`): a new identity, the same fingerprint. */
const again = (first: string, n: number) => ({ ...ticketIssue(`${first}#${n}`), fingerprint: first });

describe('decideForIssue', () => {
  it('answers 404 naming the ticket (clipped) when it has no investigation, deciding nothing', async () => {
    const id = await r.awaiting('other', ['c1']);
    expect(
      await decideForIssue(deps(), { source: 'tickets', identity: 'none', fingerprint: 'none' }, [approve('c1')]),
    ).toEqual({ status: 404, body: { error: 'no investigation of tickets issue none' } });
    const long = 'x'.repeat(300);
    const reply = await decideForIssue(deps(), { source: 'tickets', identity: long }, [approve('c1')]);
    expect(reply.body.error).toBe(`no investigation of tickets issue ${'x'.repeat(200)}…[100 more characters]`);
    expect((await r.store.get(id))!.status).toBe('awaiting_approval');
  });

  it("decides the ticket's investigation by its identity alone, naming it in the answer", async () => {
    const id = await r.awaiting('t1', ['c1', 'c2']);
    expect(await decideForIssue(deps(), { source: 'tickets', identity: 't1' }, [approve('c1')])).toEqual({
      status: 202,
      body: { investigation: id, status: 'awaiting_approval', recorded: ['c1'], waitingFor: ['c2'] },
    });
    expect(await decideForIssue(deps(), { source: 'tickets', identity: 't1' }, [approve('c2')])).toEqual({
      status: 202,
      body: { investigation: id, status: 'queued', recorded: ['c2'] },
    });
    expect(await r.work.getJob(`${id}-resume-1`)).toBeDefined();
  });

  it('prefers the latest investigation of the fingerprint, unless the calls named are pending on the first', async () => {
    const first = await r.awaiting('t2', ['c1']);
    const latest = await r.awaiting(again('t2', 1), ['c9']);
    const ticket = { source: 'tickets', identity: 't2', fingerprint: 't2' };
    expect(await decideForIssue(deps(), ticket, [approve('c1')])).toMatchObject({
      status: 202,
      body: { investigation: first, status: 'queued', recorded: ['c1'] },
    });
    expect(await decideForIssue(deps(), ticket, [approve('c9')])).toMatchObject({
      status: 202,
      body: { investigation: latest, status: 'queued', recorded: ['c9'] },
    });
  });

  it("when no call named is pending anywhere, lets the latest investigation's answer say why", async () => {
    await r.awaiting('t3', ['c1']);
    const latest = await r.awaiting(again('t3', 1), ['c9']);
    expect(
      await decideForIssue(deps(), { source: 'tickets', identity: 't3', fingerprint: 't3' }, [approve('nope')]),
    ).toEqual({ status: 422, body: { investigation: latest, error: 'no pending tool call nope; pending: c9' } });
  });

  it('decides the calls pending there and lists the others as ignored (clipped)', async () => {
    const id = await r.awaiting('t4', ['c1', 'c2']);
    const odd = 'y'.repeat(300);
    expect(
      await decideForIssue(deps(), { source: 'tickets', identity: 't4' }, [approve('c1'), approve('zz'), approve(odd)]),
    ).toEqual({
      status: 202,
      body: {
        investigation: id,
        status: 'awaiting_approval',
        recorded: ['c1'],
        waitingFor: ['c2'],
        ignored: ['zz', `${'y'.repeat(256)}…[44 more characters]`],
      },
    });
    const inv = (await r.store.get(id))!;
    expect(inv.status).toBe('awaiting_approval');
  });

  it('skips an investigation whose record is gone', async () => {
    const first = await r.awaiting('t5', ['c1']);
    const latest = await r.awaiting(again('t5', 1), ['c1']);
    await r.client.del(keys.investigation(latest));
    expect(
      await decideForIssue(deps(), { source: 'tickets', identity: 't5', fingerprint: 't5' }, [approve('c1')]),
    ).toMatchObject({ status: 202, body: { investigation: first } });
  });
});
