import type { z } from 'zod';

/** What a tool hands back to the runtime before shaping. */
export type ToolOutput =
  | { status: 'success'; data: unknown }
  | { status: 'no_data'; data?: unknown; message?: string }
  | { status: 'error'; error: string };

/** What the model and the API see for every call: always one of these, never a thrown error. */
export interface ToolResult {
  tool: string;
  status: 'success' | 'error' | 'no_data' | 'approval_required';
  data?: string;
  error?: string;
  params: Record<string, unknown>;
  elapsedMs: number;
  truncated?: boolean;
}

export interface ToolContext {
  signal: AbortSignal;
  /** True only when a human approved this exact call; side-effecting runners check it again. */
  approved: boolean;
}

export interface Tool {
  name: string;
  description: string;
  /** Validates the model's arguments and is turned into the JSON Schema the model sees. */
  params: z.ZodObject;
  /** Tools are read-only unless they say otherwise; side effects need approval. */
  sideEffects?: boolean;
  run(params: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}

export type Prerequisite =
  | { kind: 'env'; vars: string[] }
  | { kind: 'command'; argv: string[]; timeoutMs?: number }
  | { kind: 'http'; url: string; timeoutMs?: number; headers?: Record<string, string> }
  /** Built-in toolsets' own checks: resolve to a reason when unusable, null when fine. */
  | { kind: 'check'; run: () => Promise<string | null> };

export interface Toolset {
  name: string;
  description: string;
  /** Where it came from: "builtin" or a YAML file path. */
  origin: string;
  enabled: boolean;
  prerequisites: Prerequisite[];
  tools: Tool[];
}

export type ToolsetState = 'enabled' | 'disabled' | 'failed';

export interface ToolsetStatus {
  name: string;
  origin: string;
  state: ToolsetState;
  reason?: string;
  tools: string[];
}
