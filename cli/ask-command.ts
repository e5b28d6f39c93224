import type { ApiOptions } from './api-client.js';
import { ApiError, callApi } from './api-client.js';
import { renderMarkdown, type Style } from './terminal-markdown.js';

interface Entry {
  question: string;
  answer: string | null;
  status: string;
  error: string | null;
}

interface Polled {
  conversation: Entry[];
  approvals: { pending: Array<{ toolCallId: string; tool: string }> } | null;
}

export interface AskOptions {
  timeoutSeconds: number;
  pollMs?: number;
  style: Style;
  out: NodeJS.WritableStream;
  /** Where the progress indicator goes; none when it is not a terminal. */
  progress: NodeJS.WriteStream | null;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** `lestrade ask <id> "question"`: POST /ask, then waits for the answer and prints it. */
export async function askCommand(api: ApiOptions, id: string, question: string, opts: AskOptions): Promise<void> {
  const path = `/api/investigations/${encodeURIComponent(id)}`;
  const { body } = await callApi<{ entry: number }>(api, `${path}/ask`, { question });
  const deadline = Date.now() + opts.timeoutSeconds * 1000;
  let frame = 0;
  let told = '';
  try {
    for (;;) {
      const { body: inv } = await callApi<Polled>(api, path);
      const entry = inv.conversation[body.entry];
      if (entry && ['answered', 'failed', 'cancelled'].includes(entry.status)) return finish(entry, opts);
      if (entry?.status === 'awaiting_approval' && inv.approvals && told !== 'approval') {
        told = 'approval';
        const calls = inv.approvals.pending.map((p) => `${p.toolCallId} (${p.tool})`).join(', ');
        clearProgress(opts.progress);
        process.stderr.write(`the answer waits for approval of ${calls}: lestrade approve ${id} <call>\n`);
      }
      if (Date.now() >= deadline) {
        throw new ApiError(
          `no answer within ${opts.timeoutSeconds}s (follow-up ${entry?.status ?? 'queued'}); it goes on: see \`lestrade show ${id}\`, or wait longer with --timeout`,
        );
      }
      opts.progress?.write(
        `\r${FRAMES[frame++ % FRAMES.length]} waiting for the answer (${entry?.status ?? 'queued'})`,
      );
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 500));
    }
  } finally {
    clearProgress(opts.progress);
  }
}

function finish(entry: Entry, opts: AskOptions): void {
  clearProgress(opts.progress);
  if (entry.status !== 'answered') {
    throw new ApiError(`the follow-up ${entry.status}${entry.error ? `: ${entry.error}` : ''}`);
  }
  opts.out.write(renderMarkdown(entry.answer ?? '', opts.style));
}

function clearProgress(progress: NodeJS.WriteStream | null): void {
  progress?.write('\r\u001b[2K');
}
