import { restoreWith, type RestorePlace } from '../src/redaction/redaction.js';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import type { Config } from '../src/config/schema.js';
import { ConfigError, RetryableError } from '../src/errors.js';
import type { Issue } from '../src/issue.js';
import { isLlmConfigured } from '../src/llm/create-client.js';
import type { LoopState } from '../src/records/loop-state.js';
import type { Logger } from '../src/log.js';
import type { AnySource } from '../src/registration/source.js';
import { toToolCallRecord } from '../src/store/investigation.js';
import { commentFor } from '../src/delivery/comment-for.js';
import { vouchedHosts } from '../src/render/vouched-hosts.js';
import { writeRca } from '../src/delivery/write-rca.js';
import type { RcaWriter } from '../src/registration/rca-writer.js';
import { buildInvestigator } from './build-investigator.js';
import {
  confirmPlan,
  describePlan,
  planWrites,
  terminalPrompter,
  type Prompter,
  type WritePlan,
  type WritePlanOptions,
} from './write-plan.js';

type Env = Record<string, string | undefined>;

export interface PullOptions extends Record<string, unknown>, WritePlanOptions {
  limit?: number;
  update?: boolean;
  jsonOutputFile?: string;
}

/**
 * `lestrade investigate <source>` (HolmesGPT's pull mode): fetch issues, investigate each, print
 * the RCAs and, with --update, write each back as our one comment (found by marker, then edited).
 * --update writes only where the webhooks' trust rules would have acted (unless --all), says where
 * before anything runs, and past a few issues asks first (or wants --yes); --dry-run writes nothing.
 */
export async function investigateFromSource(
  source: AnySource,
  config: Config,
  env: Env,
  opts: PullOptions,
  log: Logger,
  out: (s: string) => void,
  prompter: Prompter = terminalPrompter(),
): Promise<void> {
  if (!source.pull) throw new ConfigError(`source ${source.name} has no pull mode`);
  if (!isLlmConfigured(config.llm))
    throw new ConfigError('no LLM configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for a compatible server)');
  const slice = config.sources[source.name];
  const off = source.disabledReason(slice);
  if (off) throw new ConfigError(`source ${source.name} is off: ${off}`);
  const ctx = { log, env, publicUrl: config.server.publicUrl };
  const planning = Boolean(opts.update || opts.dryRun);
  const writer = planning ? source.writer?.(slice, ctx) : null;
  if (planning && !writer) throw new ConfigError(`source ${source.name} cannot write back (--update)`);
  const { client, query, writeGate } = source.pull.prepare(slice, opts, ctx);
  const issues = (await client.fetchIssues(query)).slice(0, opts.limit ?? Infinity);
  const noun = source.pull.noun ?? 'issue';
  out(`Found ${issues.length} ${noun}${issues.length === 1 ? '' : 's'} to investigate.\n`);
  const plan = planning ? await planWrites(issues, writeGate, opts.all === true) : null;
  if (plan) {
    out(describePlan(plan, opts));
    await confirmPlan(plan, opts, prompter);
  }
  const target = writer && plan && !opts.dryRun ? { writer, plan } : null;
  const dryRun = plan && opts.dryRun ? plan : null;
  const results = await investigateAll(issues, { config, env, log, out, target, dryRun });
  if (opts.jsonOutputFile) writeFileSync(opts.jsonOutputFile, `${JSON.stringify(results, null, 2)}\n`);
}

interface RunContext {
  config: Config;
  env: Env;
  log: Logger;
  out: (s: string) => void;
  /** Where RCAs are written: the writer and the issues the plan allows. */
  target: { writer: RcaWriter; plan: WritePlan } | null;
  /** A dry run's plan: what would have been written is said, nothing is. */
  dryRun: WritePlan | null;
}

async function investigateAll(issues: Issue[], run: RunContext): Promise<unknown[]> {
  const { config, out } = run;
  const { investigator, toolsets, runbooks } = await buildInvestigator(config, run.env, undefined, { log: run.log });
  for (const p of runbooks.problems) run.log.warn({ file: p.file, line: p.line }, `runbook skipped: ${p.reason}`);
  const results: unknown[] = [];
  try {
    for (const issue of issues) {
      const { answer, state } = await investigator.investigate(issue);
      // The model answered with placeholders (redaction): mapped back where redaction.restoreIn lists the place.
      const shown = (place: RestorePlace) =>
        config.redaction.restoreIn.includes(place) ? restoreWith(state.redaction, answer) : answer;
      out(`\n# ${issue.title}\n\n${shown('cli')}\n`);
      if (run.dryRun?.writes.has(issue)) out(`\n(--dry-run: would write this RCA to ${labelOf(issue)})\n`);
      const written = run.target?.plan.writes.has(issue)
        ? await writeBack(run.target.writer, issue, shown('tickets'), state, run)
        : undefined;
      results.push(report(issue, shown('cli'), state, written));
    }
  } finally {
    // MCP connections and stdio servers end with the command.
    await toolsets.close();
  }
  return results;
}

const labelOf = (issue: Issue) => issue.locator?.label ?? issue.locator?.key ?? issue.identity;

/** Our one comment on the issue, created or edited; what the JSON report says of it. */
async function writeBack(writer: RcaWriter, issue: Issue, answer: string, state: LoopState, run: RunContext) {
  const { config, out } = run;
  let resume: string | null = null;
  const doc = commentFor(
    { id: randomUUID(), issue, rca: answer, linkHosts: vouchedHosts(state.toolCalls) },
    {
      publicUrl: config.server.publicUrl,
      linkHosts: config.writeBack.linkHosts,
      allowMentions: config.writeBack.allowMentions,
    },
  );
  const w = await writeWithRetries(
    () => writeRca(writer, issue.locator!, doc, null, { resume }),
    (token) => {
      resume = token;
    },
  );
  out(
    `\n(${w.action === 'created' ? 'Posted' : 'Updated'} comment on ${labelOf(issue)}${w.comment.url ? `: ${w.comment.url}` : ''})\n`,
  );
  return { action: w.action, commentId: w.comment.id, url: w.comment.url };
}

const CLI_WRITE_TRIES = 6;
const CLI_MAX_WAIT_MS = 30_000;

/**
 * The CLI has no queue to come back later, and a person waiting: a retryable vendor answer (a
 * note still being processed, a 429) is waited out here, a few times, carrying the resume token.
 */
async function writeWithRetries<T>(attempt: () => Promise<T>, onResume: (token: string | null) => void): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof RetryableError) || i >= CLI_WRITE_TRIES) throw err;
      onResume(err.resumeToken ?? null);
      await new Promise((r) => setTimeout(r, Math.min(err.retryAfterMs ?? 2_000, CLI_MAX_WAIT_MS)));
    }
  }
}

function report(issue: Issue, rca: string, state: LoopState, writeBack: unknown) {
  const { raw: _raw, ...rest } = issue;
  return {
    issue: rest,
    rca,
    toolCalls: state.toolCalls.map(toToolCallRecord),
    usage: state.usage,
    ...(writeBack ? { writeBack } : {}),
  };
}
