/** What a tool hands back to the runtime before shaping. */
export type ToolOutput =
  | { status: 'success'; data: unknown }
  | { status: 'no_data'; data?: unknown; message?: string }
  | { status: 'error'; error: string };

/** What the model and the API see for every call: always one of these, never a thrown error. */
export interface ToolResult {
  tool: string;
  /** "denied": a human said no (or nobody said yes in time); `error` says which, `feedback` carries their words. */
  status: 'success' | 'error' | 'no_data' | 'approval_required' | 'denied';
  data?: string;
  error?: string;
  /** A human's words with a denial, handed to the model in-band. */
  feedback?: string;
  params: Record<string, unknown>;
  elapsedMs: number;
  truncated?: boolean;
  /** Size of the whole output when it was too large to send whole (kept, retrievable through the API). */
  outputTokens?: number;
  /** Says how to narrow an output that was not sent whole. */
  hint?: string;
  /** The tool call whose whole output was kept (GET /api/investigations/:id/outputs/:callId). */
  callId?: string;
}
