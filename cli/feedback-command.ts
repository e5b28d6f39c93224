import { userInfo } from 'node:os';
import type { ApiOptions } from './api-client.js';
import { callApi } from './api-client.js';

interface FeedbackReply {
  changed: boolean;
  feedback: Array<{ verdict: string; by: { via: string; user: string } }>;
}

export interface FeedbackOptions {
  cause?: string;
  note?: string;
}

/**
 * `lestrade feedback <id> correct|partly|wrong [--cause] [--note]`: POST /api/investigations/:id/feedback,
 * recorded as given via the CLI by the token's name (the local user name when the service has no token).
 */
export async function feedbackCommand(
  api: ApiOptions,
  id: string,
  verdict: string,
  opts: FeedbackOptions,
  out: NodeJS.WritableStream,
): Promise<void> {
  const { body } = await callApi<FeedbackReply>(api, `/api/investigations/${encodeURIComponent(id)}/feedback`, {
    verdict,
    ...(opts.cause ? { rootCause: opts.cause } : {}),
    ...(opts.note ? { note: opts.note } : {}),
    by: { via: 'cli', user: localUser() },
  });
  const others = body.feedback.length - 1;
  const tally = others > 0 ? ` (${body.feedback.length} people have rated it)` : '';
  out.write(body.changed ? `recorded: ${verdict}${tally}\n` : `unchanged: you had already said ${verdict}${tally}\n`);
}

function localUser(): string {
  try {
    return userInfo().username || 'unknown';
  } catch {
    // No passwd entry for this uid (a container's arbitrary user): still a verdict, from someone unnamed.
    return 'unknown';
  }
}
