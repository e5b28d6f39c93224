import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { InputError } from '../../src/errors.js';
import type { Issue } from '../../src/issue.js';
import type { Investigation, ToolCallRecord } from '../../src/store/investigation.js';
import type { ToolOutput } from '../../src/tools/types.js';
import { callApi, type ApiOptions } from '../api-client.js';
import { CASE_FILE } from './eval-case.js';
import { formatMockFile, mockFileName } from './mock-file.js';

export const PLACEHOLDER_FACT = 'TODO: a fact the RCA must state (replace this line; one fact per item)';

type Recorded = Pick<Investigation, 'id' | 'title' | 'status' | 'issue' | 'toolCalls' | 'rca' | 'finishedAt'>;

export interface RecordResult {
  folder: string;
  mocks: string[];
  /** Calls left out: refused or never run (awaiting approval, denied). */
  skipped: number;
}

/**
 * `lestrade eval record <id> DIR`: a finished investigation, read from the API, becomes a case: its
 * issue (issue.json, without the vendor payload), each tool call that ran as a mock file, the RCA it
 * gave (rca.md, for whoever writes the facts) and a test_case.yaml whose expected_output is a
 * placeholder to replace. Text passes through `redact` (the configured secrets) on the way out.
 */
export async function recordCommand(
  api: ApiOptions,
  id: string,
  dir: string,
  redact: (s: string) => string,
  toolsetOf: ReadonlyMap<string, string>,
  /** What a correct RCA must state, when someone said so (a `wrong` verdict's root cause); the placeholder otherwise. */
  expected?: { facts: string[]; tags: string[]; why: string },
): Promise<RecordResult> {
  if (existsSync(join(dir, CASE_FILE))) {
    throw new InputError('', `${dir} already holds a ${CASE_FILE}: record into a new folder`);
  }
  const { body: inv } = await callApi<Recorded>(api, `/api/investigations/${encodeURIComponent(id)}`);
  if (inv.status !== 'completed') {
    throw new InputError('', `investigation ${id} is ${inv.status}: only a completed investigation can be recorded`);
  }
  mkdirSync(dir, { recursive: true });
  const names = new Set<string>();
  const mocks: string[] = [];
  let skipped = 0;
  for (const call of inv.toolCalls) {
    const output = outputOf(call, redact);
    if (!output) {
      skipped += 1;
      continue;
    }
    const params = JSON.parse(redact(JSON.stringify(call.params))) as Record<string, unknown>;
    const name = uniqueName(mockFileName(call.name, params), names);
    const toolset = toolsetOf.get(call.name) ?? 'recorded';
    writeFileSync(join(dir, name), formatMockFile({ toolset, tool: call.name, matchParams: params, output }));
    mocks.push(name);
  }
  writeFileSync(join(dir, 'issue.json'), `${redact(JSON.stringify(issueOf(inv.issue), null, 2))}\n`);
  if (inv.rca) writeFileSync(join(dir, 'rca.md'), `${redact(inv.rca)}\n`);
  writeFileSync(join(dir, CASE_FILE), caseFile(inv, toolsetOf, expected, redact));
  return { folder: dir, mocks, skipped };
}

function outputOf(call: ToolCallRecord, redact: (s: string) => string): ToolOutput | null {
  if (call.status === 'success') return { status: 'success', data: redact(call.output ?? '') };
  if (call.status === 'no_data') return { status: 'no_data', data: redact(call.output ?? '') };
  if (call.status === 'error') return { status: 'error', error: redact(call.error ?? call.output ?? 'error') };
  return null;
}

function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let i = 2; taken.has(candidate); i++) candidate = name.replace(/\.txt$/, `_${i}.txt`);
  taken.add(candidate);
  return candidate;
}

/** The issue without its vendor payload (large, and nothing the prompt needs that the fields lack). */
function issueOf(issue: Issue): Issue {
  return { ...issue, raw: null };
}

function caseFile(
  inv: Recorded,
  toolsetOf: ReadonlyMap<string, string>,
  expected: { facts: string[]; tags: string[]; why: string } | undefined,
  redact: (s: string) => string,
): string {
  const toolsets = [...new Set(inv.toolCalls.map((c) => toolsetOf.get(c.name) ?? 'recorded'))];
  const doc = stringify({
    expected_output: expected ? expected.facts.map(redact) : [PLACEHOLDER_FACT],
    tags: [...new Set(['recorded', ...(expected?.tags ?? []), ...toolsets])],
  });
  const clipped = inv.toolCalls.some((c) => c.outputClipped)
    ? '# Some outputs were clipped to the stored 16,000 characters.\n'
    : '';
  const guide = expected
    ? `# ${oneLine(expected.why)}; rca.md holds what it said then.`
    : '# Replace the placeholder below with the facts a correct RCA must state; rca.md holds what it said then.';
  return `# Recorded from investigation ${inv.id} (${oneLine(inv.title)}), finished ${inv.finishedAt ?? '?'}.
${guide}
${clipped}${doc}`;
}

/** A comment line of the case file: no line break may end the comment early. */
const oneLine = (s: string): string => s.replace(/[\r\n\u2028\u2029]+/g, ' ');
