import type { z } from 'zod';
import type { ToolOutput } from '../model/tool-result.js';

export type { ToolOutput, ToolResult } from '../model/tool-result.js';

/** What a tool says of one call before it runs: run it, refuse it, or ask a human first. */
export type CallVerdict =
  { decision: 'allow' } | { decision: 'deny'; reason: string } | { decision: 'ask'; reason: string };

export interface ToolContext {
  signal: AbortSignal;
  /** True only when a human approved this exact call; side-effecting runners check it again. */
  approved: boolean;
  /** The canonical key (see callKey) of the call the human approved, so a runner can check it is this one. */
  approvedCall?: string;
}

export interface Tool {
  name: string;
  description: string;
  /** Validates the model's arguments and is turned into the JSON Schema the model sees. */
  params: z.ZodObject;
  /** Tools are read-only unless they say otherwise; side effects need approval. */
  sideEffects?: boolean;
  /** A per-call decision from the arguments (the bash policy); absent means allow, unless sideEffects. */
  verdict?(params: Record<string, unknown>): CallVerdict | Promise<CallVerdict>;
  run(params: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}

export type Prerequisite =
  | { kind: 'env'; vars: string[] }
  | { kind: 'command'; argv: string[]; timeoutMs?: number }
  | { kind: 'http'; url: string; timeoutMs?: number; headers?: Record<string, string> }
  /**
   * Built-in toolsets' own checks: resolve to a reason when unusable, null when fine. `failed`: a
   * failure means the toolset is switched on but cannot run safely as configured (state "failed",
   * not "disabled"), e.g. the bash toolset without its sandbox.
   */
  | { kind: 'check'; run: () => Promise<string | null>; failed?: boolean };

export interface Toolset {
  name: string;
  description: string;
  /** Where it came from: "builtin" or a YAML file path. */
  origin: string;
  enabled: boolean;
  prerequisites: Prerequisite[];
  tools: Tool[];
  /** Tools of this toolset that need a human's approval for every call. */
  approvalRequired?: string[];
}

export type ToolsetState = 'enabled' | 'disabled' | 'failed';

export interface ToolsetStatus {
  name: string;
  origin: string;
  state: ToolsetState;
  reason?: string;
  tools: string[];
}
