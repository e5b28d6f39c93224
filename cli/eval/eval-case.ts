import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { describeZodIssues, InputError } from '../../src/errors.js';
import type { Issue } from '../../src/issue.js';
import { issueOfCase } from './case-issue.js';
import { loadMocks, type MockEntry } from './mock-file.js';
import { caseContext } from './case-context.js';
import { caseToolsets, type CaseToolsets } from './holmes-toolsets.js';

export const CASE_FILE = 'test_case.yaml';

/**
 * test_case.yaml as HolmesGPT writes it. Only the fields an eval here reads are typed; the rest of
 * HolmesGPT's (before_test, after_test, evaluation, port_forwards, ...) are accepted and ignored,
 * since the mocks stand in for the live cluster those set up.
 */
const CaseFileSchema = z.looseObject({
  user_prompt: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  expected_output: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
  tags: z.array(z.string().min(1)).optional(),
  skip: z.boolean().optional(),
  skip_reason: z.string().optional(),
  description: z.string().optional(),
  toolsets: z.record(z.string(), z.looseObject({ enabled: z.boolean().optional() })).optional(),
  before_test: z.string().nullish(),
  after_test: z.string().nullish(),
  include_files: z.array(z.string().min(1)).nullish(),
  runbooks: z.looseObject({ catalog: z.array(z.record(z.string(), z.unknown())).optional() }).nullish(),
  expected_sections: z.record(z.string(), z.union([z.boolean(), z.array(z.string()), z.null()])).nullish(),
  /** The investigation's "now" (HolmesGPT freezes the clock at it). */
  mocked_date: z.iso.datetime({ offset: true }).nullish(),
  /** Lestrade's opt-in: "*" in match_params matches any value (HolmesGPT reads it literally). */
  lestrade_wildcards: z.boolean().optional(),
});

export interface EvalCase {
  /** The folder's name (a user_prompt list gives one case per prompt: `name[0]`, `name[1]`, ...). */
  id: string;
  folder: string;
  tags: string[];
  skip: string | null;
  expected: string[];
  issue: Issue;
  mocks: MockEntry[];
  /** test_case.yaml's toolsets, then toolsets.yaml's over them, HolmesGPT's names resolved to ours. */
  toolsets: CaseToolsets;
  /** "*" in match_params matches any value (the case opted in with lestrade_wildcards: true). */
  wildcards: boolean;
  /** mocked_date: the time the investigation is told it is now (else the real time). */
  now: string | null;
  /** investigate_request.json's sections: asked for instead of the four. */
  sections: Array<{ title: string; description: string }>;
  /** HolmesGPT's expected_sections, scored as their runner asserts them. */
  expectedSections: Record<string, string[] | boolean | null>;
}

/**
 * Why a case cannot run here: HolmesGPT sets its cluster up with before_test (kubectl apply ...) and the case
 * has no recorded outputs to stand in for it, so every answer would come from nothing. Neither passed nor failed.
 */
export const NEEDS_CLUSTER = 'needs a cluster: before_test/after_test set up a live one and no tool output is recorded';

/** Every case folder under the given folders (a folder holding test_case.yaml is itself a case), by id. */
export function findCases(dirs: string[]): EvalCase[] {
  const folders: string[] = [];
  for (const dir of dirs) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) {
      throw new InputError('', `eval: ${dir} is not a folder of cases (each case is a folder with a ${CASE_FILE})`);
    }
    if (existsSync(join(dir, CASE_FILE))) folders.push(dir);
    else {
      const found = readdirSync(dir)
        .sort()
        .filter((f) => !f.startsWith('.') && existsSync(join(dir, f, CASE_FILE)));
      // A folder with no case in it is a mistake (a wrong path), not a suite that passed: "0/0, 100%" would say so.
      if (!found.length)
        throw new InputError('', `eval: ${dir} has no ${CASE_FILE}, nor any folder with one: no case to run`);
      folders.push(...found.map((f) => join(dir, f)));
    }
  }
  return folders.flatMap(loadCase);
}

/** One case folder: its test_case.yaml validated (a bad one names the file and the field), its issue, its mocks. */
export function loadCase(folder: string): EvalCase[] {
  const file = join(folder, CASE_FILE);
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError('', `${file}: not valid YAML (${(err as Error).message.split('\n')[0]})`);
  }
  const parsed = CaseFileSchema.safeParse(doc);
  if (!parsed.success) throw new InputError('', `${file}: ${describeZodIssues(parsed.error.issues)}`);
  const c = parsed.data;
  const id = basename(folder);
  const mocks = loadMocks(folder);
  const live = Boolean(c.before_test || c.after_test) && mocks.length === 0;
  const base = {
    folder,
    tags: c.tags ?? [],
    skip: skipReason(c.skip, c.skip_reason, live),
    expected: typeof c.expected_output === 'string' ? [c.expected_output] : c.expected_output,
    mocks,
    toolsets: caseToolsets({ ...c.toolsets, ...toolsetsFile(folder) }),
    wildcards: c.lestrade_wildcards === true,
    now: c.mocked_date ?? null,
    sections: requestedSections(folder),
    expectedSections: c.expected_sections ?? {},
  };
  const context = caseContext(folder, c);
  const withContext = (issue: Issue): Issue =>
    context.length ? { ...issue, untrusted: [...(issue.untrusted ?? []), ...context] } : issue;
  const prompts = c.user_prompt === undefined || typeof c.user_prompt === 'string' ? null : c.user_prompt;
  if (!prompts)
    return [{ ...base, id, issue: withContext(issueOfCase(folder, id, c.user_prompt as string | undefined)) }];
  return prompts.map((p, i) => ({
    ...base,
    id: `${id}[${i}]`,
    issue: withContext(issueOfCase(folder, `${id}[${i}]`, p)),
  }));
}

function skipReason(skip: boolean | undefined, reason: string | undefined, live: boolean): string | null {
  if (skip) return reason ?? 'skip: true in test_case.yaml';
  return live ? NEEDS_CLUSTER : null;
}

const ToolsetsFileSchema = z.looseObject({
  toolsets: z.record(z.string(), z.looseObject({ enabled: z.boolean().optional() }).nullable()).optional(),
});

/** HolmesGPT's toolsets.yaml beside test_case.yaml: `toolsets: {name: {enabled, config}}` (config is theirs). */
function toolsetsFile(folder: string): Record<string, { enabled?: boolean } | undefined> {
  const file = join(folder, 'toolsets.yaml');
  if (!existsSync(file)) return {};
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InputError('', `${file}: not valid YAML (${(err as Error).message.split('\n')[0]})`);
  }
  const parsed = ToolsetsFileSchema.safeParse(doc ?? {});
  if (!parsed.success) throw new InputError('', `${file}: ${describeZodIssues(parsed.error.issues)}`);
  return Object.fromEntries(Object.entries(parsed.data.toolsets ?? {}).map(([k, v]) => [k, v ?? undefined]));
}

/** investigate_request.json's `sections`: `{title: what goes in it}`, in order. */
function requestedSections(folder: string): Array<{ title: string; description: string }> {
  const file = join(folder, 'investigate_request.json');
  if (!existsSync(file)) return [];
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return []; // issueOfCase reports the bad JSON, naming the file.
  }
  const sections = (doc as { sections?: unknown } | null)?.sections;
  if (!sections || typeof sections !== 'object' || Array.isArray(sections)) return [];
  return Object.entries(sections)
    .filter((e): e is [string, string] => typeof e[1] === 'string')
    .map(([title, description]) => ({ title, description }));
}
