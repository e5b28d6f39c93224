import { clip } from '../log-safe.js';
import type { TicketRef } from '../registration/source.js';
import type { Investigation } from '../store/investigation.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import { decideCalls, type CallDecision, type DecideDeps, type DecideReply } from './decide-calls.js';

export interface IssueDecideDeps extends DecideDeps {
  store: InvestigationStore;
}

/**
 * A decision made on a ticket (`/lestrade approve <call>` in a GitHub or Jira comment), decided through
 * decideCalls as the API's and the CLI's are. The ticket may have been investigated more than once (its
 * first identity, then `/lestrade investigate` under new ones, the latest kept by fingerprint): the
 * investigation is the one whose pending calls the comment names, else the latest. A named call that is
 * not pending there is left out (`ignored` in the answer) while others are decided; when none is pending,
 * decideCalls' own answer says why (409 not awaiting or already decided, 422 no such call). 404 when the
 * ticket has no investigation.
 */
export async function decideForIssue(
  deps: IssueDecideDeps,
  issue: TicketRef,
  decisions: CallDecision[],
): Promise<DecideReply> {
  const candidates = await candidatesOf(deps.store, issue);
  if (candidates.length === 0)
    return { status: 404, body: { error: `no investigation of ${issue.source} issue ${clip(issue.identity, 200)}` } };
  const named = (inv: Investigation) => decisions.filter((d) => isPending(inv, d.toolCallId));
  const inv = candidates.find((c) => named(c).length > 0) ?? candidates[0]!;
  const pending = named(inv);
  if (pending.length === 0 || pending.length === decisions.length)
    return withId(inv, await decideCalls(deps, inv, decisions));
  const ignored = decisions.filter((d) => !pending.includes(d)).map((d) => clip(d.toolCallId, 256));
  const reply = await decideCalls(deps, inv, pending);
  return withId(inv, { status: reply.status, body: { ...reply.body, ignored } });
}

/** The latest investigation of the ticket's fingerprint first, then the one of its identity; each once. */
export async function candidatesOf(store: InvestigationStore, issue: TicketRef): Promise<Investigation[]> {
  const latest = issue.fingerprint ? await store.latest(issue.source, issue.fingerprint) : null;
  const [first] = await store.lookup([issue]);
  const ids = [...new Set([latest, first].filter((id): id is string => Boolean(id)))];
  const found = await Promise.all(ids.map((id) => store.get(id)));
  return found.filter((inv): inv is Investigation => inv !== null);
}

function isPending(inv: Investigation, toolCallId: string): boolean {
  return inv.approvals?.pending.some((p) => p.toolCallId === toolCallId) === true;
}

function withId(inv: Investigation, reply: DecideReply): DecideReply {
  return { status: reply.status, body: { investigation: inv.id, ...reply.body } };
}
