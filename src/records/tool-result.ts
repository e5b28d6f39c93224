import type { DecidedBy } from './approval.js';

/**
 * What a tool hands back to the runtime before shaping. `vouches`, when given, overrides the tool's
 * `vouchesForLinks` for this result (the bash toolset's: only a pipeline that read an outside system).
 */
export type ToolOutput =
  | { status: 'success'; data: unknown; vouches?: boolean; alreadyApplied?: boolean }
  | { status: 'no_data'; data?: unknown; message?: string; vouches?: boolean }
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
  /** Who approved or denied the call (the API shows it; the model is not told, see forModel). */
  decidedBy?: DecidedBy;
  params: Record<string, unknown>;
  /** The toolset instance the call went to (a cluster, a Prometheus server), for a toolset of several. */
  instance?: string;
  elapsedMs: number;
  truncated?: boolean;
  /** Size of the whole output when it was too large to send whole (kept, retrievable through the API). */
  outputTokens?: number;
  /** Says how to narrow an output that was not sent whole. */
  hint?: string;
  /** The tool call whose whole output was kept (GET /api/investigations/:id/outputs/:callId). */
  callId?: string;
  /**
   * The data was read from a system outside Lestrade that the model did not write (Prometheus, kubectl, an
   * MCP server): hosts it names may be linked in the RCA (see vouchedHosts). Not shown to the model.
   */
  vouches?: true;
  /** A side-effecting call that found its change already made (a second run of an approval) and wrote nothing. */
  alreadyApplied?: true;
}

/** The result as the model sees it: without who decided (a name is not the model's business) nor `vouches`. */
export function forModel(r: ToolResult | undefined): string {
  if (!r?.decidedBy && !r?.vouches) return JSON.stringify(r);
  const { decidedBy: _who, vouches: _vouches, ...rest } = r;
  return JSON.stringify(rest);
}
