import { userInfo } from 'node:os';
import type { ApiOptions } from './api-client.js';
import { callApi } from './api-client.js';

interface DecideReply {
  status: string;
  recorded: string[];
  waitingFor?: string[];
}

/**
 * `lestrade approve|deny <id> <call> [--reason]`: POST /api/investigations/:id/approvals, recorded
 * as decided via the CLI by the local user name.
 */
export async function decideCommand(
  api: ApiOptions,
  id: string,
  call: string,
  approved: boolean,
  reason: string | undefined,
  out: NodeJS.WritableStream,
): Promise<void> {
  const decision = { toolCallId: call, approved, ...(reason ? { feedback: reason } : {}) };
  const { body } = await callApi<DecideReply>(api, `/api/investigations/${encodeURIComponent(id)}/approvals`, {
    decisions: [decision],
    decidedBy: { via: 'cli', user: localUser() },
  });
  const verb = approved ? 'approved' : 'denied';
  const next = body.waitingFor?.length
    ? `still waiting for: ${body.waitingFor.join(', ')}`
    : 'every pending call is decided; the investigation resumes';
  out.write(`${verb} ${call}; ${next}\n`);
}

function localUser(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    // No passwd entry for this uid (a container's arbitrary user): still a decision, from someone unnamed.
    return 'unknown';
  }
}
