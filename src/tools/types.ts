import type { z } from 'zod';
import type { RemediationRules } from '../records/remediation.js';
import type { ToolOutput } from '../records/tool-result.js';

export type { ToolOutput, ToolResult } from '../records/tool-result.js';

/** What a tool says of one call before it runs: run it, refuse it, or ask a human first. */
export type CallVerdict =
  { decision: 'allow' } | { decision: 'deny'; reason: string } | { decision: 'ask'; reason: string };

/** What a call knows of its investigation: the labels, which pick a toolset's instance (instanced-toolset.ts). */
export interface CallScope {
  labels: Readonly<Record<string, string>>;
  /** A health check's `instance`: the instance of every toolset of several, whatever its label (docs/checks.md). */
  instance?: string;
  /** A health check's `toolsets`: the only toolsets offered and called (docs/checks.md); unset, every enabled one. */
  toolsets?: readonly string[];
}

/** The instance a call goes to, or why it may not go anywhere (told to the model as a refusal). */
export type InstancePick = { instance: string } | { refused: string };

export interface ToolContext {
  signal: AbortSignal;
  /** The toolset instance the call goes to (Tool.pickInstance's choice); absent for a toolset without instances. */
  instance?: string;
  /** True only when a human approved this exact call; side-effecting runners check it again. */
  approved: boolean;
  /** The canonical key (see callKey) of the call the human approved, so a runner can check it is this one. */
  approvedCall?: string;
  /**
   * With an approved call: its id, unique across investigations and runs and the same when the call runs again
   * after a worker stopped (AppliedCallLog.idOf). An idempotent runner derives its marker from it.
   */
  approvalId?: string;
  /**
   * With an approved call of an idempotent tool run again: when a worker that stopped started it before (ISO). The
   * tool's earlier write may or may not have happened; what was created after this time is not its target.
   */
  interruptedAt?: string;
}

export interface Tool {
  name: string;
  description: string;
  /** Validates the model's arguments and is turned into the JSON Schema the model sees. */
  params: z.ZodObject;
  /**
   * A JSON Schema written by someone else (an MCP server's): when present, the model sees it instead
   * of `params`' schema and the executor validates the arguments against it (ajv) after `params`.
   */
  inputSchema?: Record<string, unknown>;
  /** Tools are read-only unless they say otherwise; side effects need approval. */
  sideEffects?: boolean;
  /**
   * Running an approved call of this tool again changes nothing the first run changed (it finds its earlier
   * write by a marker, or sets rather than adds). Approved calls run at most once: one a stopped worker may have
   * started runs again only for such a tool; any other is answered that its effect is unknown.
   */
  idempotent?: boolean;
  /**
   * Its output is read from a system outside Lestrade (Prometheus, kubectl, an MCP server, an HTTP API), not
   * made from the model's arguments: hosts its results name may be linked in the RCA. Absent: they may not
   * (echo-like tools, the plan tool). A result's own `vouches` overrides this.
   */
  vouchesForLinks?: boolean;
  /**
   * For a toolset of several instances (instanced-toolset.ts): the instance a call goes to, from its arguments and the
   * issue's labels, or why it is refused (another cluster's, none named). Checked before the verdict.
   */
  pickInstance?(params: Record<string, unknown>, scope: CallScope | undefined): InstancePick;
  /**
   * A remediation (a write to a system the team runs, approved by a person): its calls get the rails (one in flight
   * per workload, a daily cap) before anyone is asked, and each one that runs an entry in the investigation's
   * `remediation[]` (docs/remediation.md).
   */
  remediation?: RemediationRules;
  /** A per-call decision from the arguments (the bash policy); absent means allow, unless sideEffects. */
  verdict?(params: Record<string, unknown>): CallVerdict | Promise<CallVerdict>;
  run(params: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput>;
}

export interface CommandExplanation {
  match: string;
  say: string;
}

export type Prerequisite =
  | { kind: 'env'; vars: string[] }
  /** `explain`: a known failure's output (`match`, a substring) told in the user's words (`say`) instead. */
  | {
      kind: 'command';
      argv: string[];
      timeoutMs?: number;
      explain?: CommandExplanation[];
      /** Variables set for the command on top of the process's (an instance's KUBECONFIG). */
      env?: Record<string, string>;
    }
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
  /**
   * How the model should use this toolset, shown under its line in the system prompt as trusted
   * text: it comes from our files and the operators' configuration, never from a third party (an
   * MCP toolset's comes from `mcp.servers[].instructions`, not from the server).
   */
  instructions?: string;
  enabled: boolean;
  prerequisites: Prerequisite[];
  tools: Tool[];
  /** Tools of this toolset that need a human's approval for every call. */
  approvalRequired?: string[];
  /**
   * For a toolset whose tools change while it runs (an MCP server's list): its tools now. `tools` is
   * the list at start-up; the executor asks this one at each call and each investigation.
   */
  currentTools?: () => Tool[];
  /** For a toolset that can fail while it runs (a server dropped): null when fine, else why not. */
  health?: () => string | null;
  /** Releases what the toolset holds (connections, child processes). */
  close?: () => Promise<void>;
}

export type ToolsetState = 'enabled' | 'disabled' | 'failed';

export interface ToolsetStatus {
  name: string;
  origin: string;
  state: ToolsetState;
  reason?: string;
  tools: string[];
}
