import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { callApi, type ApiOptions } from '../api-client.js';
import { CASE_FILE } from './eval-case.js';
import { recordCommand, type RecordResult } from './record-command.js';

/** What GET /api/quality/wrong lists: an answer judged wrong, with the root cause people stated. */
interface WrongAnswer {
  id: string;
  createdAt: string;
  rootCause: string | null;
}

export interface RecordWrongResult {
  recorded: RecordResult[];
  /** Judged wrong, but nobody said what the root cause was: nothing to measure a new answer against. */
  withoutRootCause: string[];
  /** A case folder of that investigation is already there (recorded by an earlier run): left as it is. */
  already: string[];
}

/** The case folder of a wrong answer: stable, so running the command again skips what it recorded before. */
export const wrongCaseFolder = (dir: string, id: string): string => join(dir, `wrong-${id.slice(0, 8)}`);

/**
 * `lestrade eval record --feedback wrong DIR`: each answer of the last `days` days that people judged
 * wrong (the consensus of their verdicts, docs/quality.md) and gave the actual root cause for becomes a
 * case folder in DIR: its recorded tool outputs as mocks, the stated root cause as `expected_output`.
 */
export async function recordWrongAnswers(
  api: ApiOptions,
  dir: string,
  days: number,
  redact: (s: string) => string,
  toolsetOf: ReadonlyMap<string, string>,
): Promise<RecordWrongResult> {
  const { body } = await callApi<{ items: WrongAnswer[] }>(api, `/api/quality/wrong?days=${days}`);
  const result: RecordWrongResult = { recorded: [], withoutRootCause: [], already: [] };
  for (const w of body.items) {
    const folder = wrongCaseFolder(dir, w.id);
    if (!w.rootCause) result.withoutRootCause.push(w.id);
    else if (existsSync(join(folder, CASE_FILE))) result.already.push(w.id);
    else
      result.recorded.push(
        await recordCommand(api, w.id, folder, redact, toolsetOf, {
          facts: [w.rootCause],
          tags: ['feedback-wrong'],
          why: 'People judged this RCA wrong; expected_output is the root cause they stated',
        }),
      );
  }
  return result;
}

/** What the command prints: what it wrote, and what it left out and why. */
export function recordWrongSummary(r: RecordWrongResult, dir: string): string {
  const lines = [
    `Recorded ${r.recorded.length} wrongly answered investigation${r.recorded.length === 1 ? '' : 's'} as eval cases in ${dir}` +
      `${r.recorded.length ? ` (${r.recorded.reduce((n, x) => n + x.mocks.length, 0)} tool outputs as mocks)` : ''}.`,
  ];
  if (r.withoutRootCause.length)
    lines.push(
      `Skipped ${r.withoutRootCause.length} judged wrong without a stated root cause (nothing to measure an answer against): ` +
        `${r.withoutRootCause.map((id) => id.slice(0, 8)).join(', ')}; give one with \`lestrade feedback <id> wrong --cause TEXT\` and record again.`,
    );
  if (r.already.length)
    lines.push(
      `Left ${r.already.length} already recorded as they are: ${r.already.map((id) => wrongCaseFolder(dir, id)).join(', ')}.`,
    );
  return `${lines.join('\n')}\n`;
}
