import type { z } from 'zod';
import type { Issue, IssueLocator } from '../issue.js';
import type { Logger } from '../log.js';
import type { DecidedBy } from '../records/approval.js';
import type { DeployEvent } from '../records/deploy-event.js';
import type { FeedbackEntry } from '../records/feedback.js';
import type { RcaWriter } from './rca-writer.js';

export type Env = Record<string, string | undefined>;

/** Where one environment variable lands inside a source's config slice (`sources.<name>`). */
export type EnvBinding = [variable: string, path: string[], type: 'string' | 'int' | 'number' | 'boolean' | 'list'];

/** A webhook delivery as it arrived: header names in lower case, the body raw and unparsed. */
export interface Delivery {
  headers: Readonly<Record<string, string | undefined>>;
  rawBody: Buffer;
}

/**
 * A credential check's answer. `reason` goes to the log only (missing versus wrong credentials, never
 * the credential); `fix`, for a refusal that is the operator's to fix (no credential configured at all),
 * is also sent in the 401's body, so the sender's own log says what to set.
 */
export type Verdict = { ok: true } | { ok: false; reason: string; fix?: string };

/** What a source makes of one delivery. */
export type DeliveryOutcome =
  /** Issues for intake: open ones are claimed and queued, resolved ones mark their investigation. */
  | { kind: 'issues'; issues: Issue[]; log?: Record<string, unknown>; extra?: Record<string, unknown> }
  /** Understood and deliberately not acted on (not a trigger, untrusted author, our own echo). */
  | { kind: 'ignored'; reason: string }
  /** A vendor handshake such as GitHub's ping; an undefined body is sent as an empty 200 (Slack's acknowledgement). */
  | { kind: 'reply'; status: number; body: unknown }
  /** A trusted person's decision on pending calls of the issue's investigation (`/lestrade approve|deny`). */
  | { kind: 'decide'; issue: TicketRef; decisions: TicketDecision[] }
  /**
   * A trusted person's verdict on the issue's RCA (`/lestrade correct|partly|wrong`). `answer` posts a short
   * reply on the ticket: called only when the verdict changed something (a redelivery changes nothing).
   */
  | { kind: 'feedback'; issue: TicketRef; feedback: TicketFeedback; answer?: (text: string) => Promise<void> }
  /** A finished deploy (GitHub's deployment_status success, POST /webhooks/deploy): told once to the deploy listener. */
  | { kind: 'deploy'; deploy: DeployEvent };

/** A verdict read from a ticket comment, given as `<source>:<login>` via 'ticket'. */
export type TicketFeedback = Omit<FeedbackEntry, 'at'>;

/**
 * The ticket a decision was made on: the identity its first investigation was claimed under, and its
 * fingerprint, under which a re-investigation (`/lestrade investigate`, a new identity) is the latest.
 */
export interface TicketRef {
  source: string;
  identity: string;
  fingerprint?: string;
}

/** One decision read from a ticket comment: decided through the same path as the API's and the CLI's. */
export interface TicketDecision {
  toolCallId: string;
  approved: boolean;
  feedback?: string;
  decidedBy: DecidedBy;
}

/**
 * How the engine's one webhook route talks to a source. The route checks, in order:
 * source on → content type → checkHeaders → body size → verify(raw body) → delivery replay →
 * JSON → handle → intake. Any step that refuses changes nothing.
 */
export interface WebhookHandler {
  /** The content types taken (415 otherwise); JSON when not given. */
  accepts?: RegExp;
  /** Turns the verified raw body into the document handle() takes; JSON.parse when not given. */
  parse?(rawBody: Buffer): unknown;
  /** Credentials that arrive in headers (bearer, basic, a shared token): checked before the body is read. */
  checkHeaders?(headers: Delivery['headers']): Verdict;
  /** Signatures over the raw body, checked before it is parsed. */
  verify?(delivery: Delivery): Verdict | Promise<Verdict>;
  /** The vendor's id of this delivery (X-GitHub-Delivery, X-Atlassian-Webhook-Identifier), to drop replays. */
  deliveryId?(headers: Delivery['headers']): string | undefined;
  /** Validates the parsed body (InputError naming the field when bad) and maps it. */
  handle(body: unknown, delivery: Delivery): DeliveryOutcome | Promise<DeliveryOutcome>;
}

/** Fetches issues from a source (pull mode, polling) and, where the source allows, writes back. */
export interface SourceClient<Q = unknown> {
  fetchIssues(query: Q): Promise<Issue[]>;
  fetchIssue?(locator: IssueLocator): Promise<Issue | null>;
}

/** One option of `lestrade investigate <source>`, in commander's syntax. */
export interface CliOption {
  flags: string;
  description: string;
  /** Collect every occurrence into an array. */
  repeatable?: boolean;
  /** A positive integer. */
  integer?: boolean;
  defaultValue?: string;
}

/**
 * Whether `lestrade investigate <name> --update` may write to a pulled issue under the trust rules
 * the webhooks apply (a trigger label, a trusted author or commenter, a configured project): null
 * when it may, else why not, naming the setting. A source without one (alerts) writes to every issue.
 */
export type WriteGate = (issue: Issue) => Promise<string | null>;

/** `lestrade investigate <name>`: the options it takes and how they become a client and a query. */
export interface PullSpec<C> {
  description: string;
  /** What one fetched issue is called in the CLI's output ("active alert", "issue"). */
  noun?: string;
  options: CliOption[];
  /** Throws ConfigError naming the missing setting when the source cannot be reached. */
  prepare(
    config: C,
    options: Record<string, unknown>,
    ctx: SourceContext,
  ): { client: SourceClient; query: unknown; writeGate?: WriteGate };
}

/** A scheduled query run by `serve` (one run at a time across processes), resuming from a cursor. */
export interface Poller {
  /** Stable id, unique across sources: e.g. "github:octo/repo". */
  id: string;
  everyMs: number;
  /** Issues changed since the cursor (null on the first run), and the cursor to resume from next time. */
  poll(cursor: string | null): Promise<{ issues: Issue[]; cursor: string }>;
}

export interface SourceContext {
  log: Logger;
  env: Env;
  /** Lestrade's own public base URL, when configured, for links back to its API. */
  publicUrl?: string;
}

/**
 * Everything a source is, in one registration: its config slice, webhook, client, write-back
 * and pollers. sources/index.ts lists them; the engine mounts each.
 */
export interface SourceRegistration<C = unknown> {
  readonly name: string;
  /** The schema of `sources.<name>` in the config file; validated with the rest of the config. */
  readonly configSchema: z.ZodType<C>;
  readonly env: EnvBinding[];
  /** Why this source is off with this config (e.g. no credentials), or null when it is on. */
  disabledReason(config: C): string | null;
  /** Said at start-up by every process that runs this source. */
  warnings?(config: C): string[];
  /** Said at start-up only by a process that serves webhooks, e.g. "webhook accepts unauthenticated requests". */
  webhookWarnings?(config: C): string[];
  webhook?(config: C, ctx: SourceContext): WebhookHandler;
  /** The write-back of an on source, or null where it has nowhere to write. */
  writer?(config: C, ctx: SourceContext): RcaWriter | null;
  pollers?(config: C, ctx: SourceContext): Poller[];
  pull?: PullSpec<C>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds sources of every config type
export type AnySource = SourceRegistration<any>;
