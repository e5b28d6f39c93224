import { clip } from '../log-safe.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import { decideCalls, type CallDecision, type DecideDeps, type DecideReply } from './decide-calls.js';

export interface IssueDecideDeps extends DecideDeps {
  store: InvestigationStore;
}

/**
 * A decision made on a ticket (`/lestrade approve <call>` in a GitHub or Jira comment): the issue's
 * investigation, found by the identity its source claimed it under, decided through decideCalls as
 * the API's and the CLI's are. 404 when the issue has no investigation.
 */
export async function decideForIssue(
  deps: IssueDecideDeps,
  issue: { source: string; identity: string },
  decisions: CallDecision[],
): Promise<DecideReply> {
  const [id] = await deps.store.lookup([issue]);
  const inv = id ? await deps.store.get(id) : null;
  if (!inv)
    return { status: 404, body: { error: `no investigation of ${issue.source} issue ${clip(issue.identity, 200)}` } };
  return decideCalls(deps, inv, decisions);
}
