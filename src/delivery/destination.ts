import type { z } from 'zod';
import type { Severity } from '../issue.js';
import type { CheckOutcome } from '../records/check-result.js';
import type { Logger } from '../log.js';
import type { DecidedBy } from '../records/approval.js';
import type { EnvBinding, SourceContext, WebhookHandler } from '../registration/source.js';
import type { HumanActions } from '../actions/human-actions.js';
import type { CommentDoc } from '../render/compose-comment.js';

/**
 * What a destination is told about one investigation: vendor-free, already sanitised. The RCA's
 * Markdown went through the same sanitiser and link policy as a ticket comment (`doc`); a renderer
 * still escapes it for its own markup and links only to `allowedHosts`.
 */
export interface DestinationView {
  /**
   * completed: the RCA is new; resolved: the issue (or part of its group) resolved since;
   * awaiting_approval: the run paused for a human; updated: a human decided, asked or re-ran since;
   * answered: a follow-up question was answered (`answers` holds every answer so far).
   */
  event: 'completed' | 'resolved' | 'awaiting_approval' | 'updated' | 'answered';
  investigation: {
    id: string;
    title: string;
    source: string;
    createdAt: string;
    /** The record's status (queued, running, awaiting_approval, completed, ...). */
    status: string;
    /** Which run: 1, then one more for each re-run (a re-run's RCA replaces the first's message where it can). */
    run: number;
    /** Lestrade's page of the investigation (server.publicUrl), when configured. */
    url: string | null;
  };
  issue: {
    identity: string;
    severity: Severity;
    status: 'open' | 'resolved';
    labels: Record<string, string>;
    /** The issue's own link (e.g. Alertmanager's generator URL), only when its host is allowed. */
    url: string | null;
  };
  /** The RCA as sanitised Markdown sections, with heading, preamble and footer. */
  doc: CommentDoc;
  /** The RCA's first line of prose, sanitised Markdown, at most 200 characters. */
  headline: string;
  /** The hosts a renderer may link to (the link policy of ticket comments). */
  allowedHosts: string[];
  /**
   * Where the message belongs with others: an Alertmanager group's investigations (and its
   * follow-ups and re-runs) share a key; without coalescing, each issue has its own.
   */
  thread: { key: string; title: string; firing: number; resolved: number; status: 'open' | 'resolved' };
  /** The calls of the paused turn (tool, parameters as the model asked, why the policy asked), and what is decided. */
  pending: PendingCallView[];
  /** Calls humans decided on earlier turns: who approved or denied what. */
  decided: Array<{ toolCallId: string; tool: string; approved: boolean; by: DecidedBy | null }>;
  /** The follow-up questions answered so far, oldest first (a destination with threads posts each once). */
  answers: AnswerView[];
  /**
   * A health check's run (an investigation of source `check`): its verdict, the status before, the evidence;
   * null for every other investigation. The summary and evidence are the model's text: escaped by every renderer.
   */
  check: CheckOutcome | null;
  /** The same run as shown: summary and evidence sanitised, the transition's headline (`headline` then says it). */
  checkView?: CheckView;
}

/** A health check's run as a destination shows it; summary and evidence are sanitised Markdown (the model's text). */
export interface CheckView {
  name: string;
  status: 'pass' | 'warn' | 'fail' | 'error';
  /** The status destinations heard of before, when any. */
  previous: 'pass' | 'warn' | 'fail' | 'error' | null;
  summary: string;
  evidence: string[];
  /** The deploy the run followed (afterDeploy checks). */
  deploy: { service: string; version: string | null; id: string } | null;
  /** "checkout: pass → fail — <summary>", or "checkout v2.41.0: fail — …" after a deploy. */
  headline: string;
}

/** One answered follow-up question. */
export interface AnswerView {
  /** Its index in the investigation's conversation: stable, what a destination keys the answer's message by. */
  entry: number;
  /** As a human typed it (through the API, the CLI or Slack): untrusted text, escaped by every renderer. */
  question: string;
  /** The model's answer as sanitised Markdown (the RCA's sanitiser and link policy). */
  answer: string;
  answeredAt: string | null;
}

export interface PendingCallView {
  toolCallId: string;
  tool: string;
  /** The parameters as the model asked for them: untrusted text, escaped by every renderer. */
  params: Record<string, unknown>;
  reason: string;
  /** Set once a human decided it (the run resumes when every call is decided). */
  decision: { approved: boolean; by: DecidedBy | null; feedback: string | null } | null;
}

/** What a destination wrote: its id (message ts, idempotency key) and a link when it has one. */
export interface Delivered {
  id: string;
  url: string | null;
  action: 'created' | 'updated' | 'unchanged';
}

/** Small durable memory in Lestrade's Redis namespace, per destination: stored ids, idempotency keys. */
export interface DestinationMemo {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  /** Runs fn while holding a lock on key across processes; RetryableError when another holds it. */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
}

export interface DeliveryContext {
  memo: DestinationMemo;
  log: Logger;
}

/**
 * One configured destination. Every failure is typed as a writer's are: RetryableError (429,
 * 5xx, network; with the vendor's retry time) or PermanentError (bad credentials, unknown channel:
 * with the error named and the fix). deliver never sleeps or retries a write itself.
 */
export interface Destination {
  readonly name: string;
  /** The write-back target as the API shows it, e.g. "slack:#alerts". */
  describe(target: string | null): string;
  /** Writes (or edits) the view; null when this event needs nothing here (e.g. Teams cannot edit). */
  deliver(view: DestinationView, target: string | null, ctx: DeliveryContext): Promise<Delivered | null>;
  /** Checks credentials (e.g. Slack's auth.test): null when fine, else what is wrong and the fix. */
  check?(): Promise<string | null>;
}

/** A destination's registration, like a source's: its config slice, env, and how to build it. */
export interface DestinationRegistration<C = unknown> {
  readonly name: string;
  /** The schema of `destinations.<name>` in the config file. */
  readonly configSchema: z.ZodType<C>;
  readonly env: EnvBinding[];
  /** Why this destination is off with this config (e.g. no token), or null when it is on. */
  disabledReason(config: C): string | null;
  /** Whether a route's `name:target` suffix is valid here (e.g. a channel), else why not. */
  targetError?(target: string): string | null;
  create(config: C, ctx: SourceContext): Destination;
  /**
   * Requests the vendor sends back (Slack's button clicks), served at POST /webhooks/<name>/<path> through the
   * webhook route like a source's; each decision goes through `actions`, the API's own path.
   */
  webhooks?(config: C, destination: Destination, actions: HumanActions, ctx: SourceContext): DestinationWebhook[];
  /** The paths of `webhooks`, known without building them: where a 404 says why they are off. */
  webhookPaths?: readonly string[];
  /** Why this destination's webhooks are off with this config (e.g. no signing secret), or null when on. */
  webhooksOffReason?(config: C): string | null;
}

/** One inbound path of a destination: POST /webhooks/<destination>/<path>. */
export interface DestinationWebhook {
  path: string;
  handler: WebhookHandler;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds destinations of every config type
export type AnyDestination = DestinationRegistration<any>;
