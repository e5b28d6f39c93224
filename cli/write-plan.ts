import { createInterface } from 'node:readline/promises';
import { InputError } from '../src/errors.js';
import type { Issue } from '../src/issue.js';
import type { WriteGate } from '../src/registration/source.js';

/** More writes than this are confirmed: asked on a terminal, `--yes` otherwise. */
export const CONFIRM_ABOVE = 5;

export interface WritePlanOptions {
  /** Write to every pulled issue, past the trust rules. */
  all?: boolean;
  /** Show what would be written; write nothing. */
  dryRun?: boolean;
  /** Confirm writing to more than CONFIRM_ABOVE issues without asking. */
  yes?: boolean;
}

export interface WritePlan {
  writes: Set<Issue>;
  skipped: Array<{ issue: Issue; reason: string }>;
}

/** Asks a yes/no question of the person at the terminal; `interactive` false when stdin is not one. */
export interface Prompter {
  interactive: boolean;
  confirm(question: string): Promise<boolean>;
}

/** Which pulled issues `--update` writes to: those the source's trust rules allow (all with --all). */
export async function planWrites(issues: Issue[], gate: WriteGate | undefined, all: boolean): Promise<WritePlan> {
  const plan: WritePlan = { writes: new Set(), skipped: [] };
  for (const issue of issues) {
    if (!issue.locator) continue;
    const reason = all || !gate ? null : await gate(issue);
    if (reason) plan.skipped.push({ issue, reason });
    else plan.writes.add(issue);
  }
  return plan;
}

const labelOf = (issue: Issue) => issue.locator?.label ?? issue.locator?.key ?? issue.identity;

/** What the plan will write to, and what it leaves alone and why, before anything runs. */
export function describePlan(plan: WritePlan, opts: WritePlanOptions): string {
  const n = plan.writes.size;
  const verb = opts.dryRun ? 'Would write' : 'Will write';
  const lines = [
    `${verb} the RCA to ${n} issue${n === 1 ? '' : 's'}${n ? `: ${[...plan.writes].map(labelOf).join(', ')}` : ''}` +
      (opts.all ? ' (--all: trust rules not applied)' : ''),
  ];
  if (plan.skipped.length) {
    lines.push(`Not writing to ${plan.skipped.length} (the webhooks' trust rules; --all writes to them too):`);
    for (const s of plan.skipped) lines.push(`  ${labelOf(s.issue)}: ${s.reason}`);
  }
  if (opts.dryRun) lines.push('--dry-run: nothing will be written.');
  return `${lines.join('\n')}\n`;
}

/**
 * Past CONFIRM_ABOVE writes: `--yes`, or a "y" at the terminal. Without a terminal to ask, it
 * refuses and says how to go on. A dry run is never asked.
 */
export async function confirmPlan(plan: WritePlan, opts: WritePlanOptions, prompter: Prompter): Promise<void> {
  const n = plan.writes.size;
  if (opts.dryRun || opts.yes || n <= CONFIRM_ABOVE) return;
  if (!prompter.interactive)
    throw new InputError(
      '',
      `--update would write to ${n} issues (more than ${CONFIRM_ABOVE}) and stdin is not a terminal to ask: ` +
        `pass --yes to write to all ${n}, --dry-run to see what would be written, or narrow the query (-n)`,
    );
  if (!(await prompter.confirm(`Write the RCA to these ${n} issues? [y/N] `)))
    throw new InputError('', `not confirmed: nothing investigated or written (--yes skips the question)`);
}

/** The terminal's prompter: asks on stdout, reads a line from stdin. */
export function terminalPrompter(): Prompter {
  return {
    interactive: process.stdin.isTTY === true,
    async confirm(question) {
      const rl = createInterface({ input: process.stdin, output: process.stdout });
      try {
        return /^y(es)?$/i.test((await rl.question(question)).trim());
      } finally {
        rl.close();
      }
    },
  };
}
