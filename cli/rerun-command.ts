import type { ApiOptions } from './api-client.js';
import { callApi } from './api-client.js';

interface RerunReply {
  status: string;
  run: number;
  runId: string;
}

/** `lestrade rerun <id>`: POST /api/investigations/:id/rerun; prints the new run and how to follow it. */
export async function rerunCommand(api: ApiOptions, id: string, out: NodeJS.WritableStream): Promise<void> {
  const { body } = await callApi<RerunReply>(api, `/api/investigations/${encodeURIComponent(id)}/rerun`, {});
  out.write(`re-run queued: run ${body.run} (${body.runId}); follow it with \`lestrade show ${id}\`\n`);
}
