import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Issue } from '../issue.js';
import { matches, parseMatcher } from '../intake-policy/label-matcher.js';
import { splitFrontMatter } from './front-matter.js';
import { RunbookFrontMatterSchema, type Runbook } from './runbook.js';

/** A runbook file that was skipped, and why: reported at start-up. */
export interface RunbookProblem {
  file: string;
  line: number;
  reason: string;
}

/** The operators' runbooks: Markdown files with front matter, from configured folders. */
export class RunbookCatalog {
  private readonly byId: Map<string, Runbook>;

  constructor(
    readonly runbooks: Runbook[],
    readonly problems: RunbookProblem[] = [],
  ) {
    this.byId = new Map(runbooks.map((r) => [r.id, r]));
  }

  /** Reads every `*.md` under each folder (recursively); a bad file is a problem, never a crash. */
  static load(dirs: readonly string[]): RunbookCatalog {
    const runbooks: Runbook[] = [];
    const problems: RunbookProblem[] = [];
    for (const dir of dirs) {
      let files: string[];
      try {
        files = markdownFiles(dir);
      } catch (err) {
        problems.push({ file: dir, line: 0, reason: `cannot read the folder: ${(err as Error).message}` });
        continue;
      }
      for (const file of files) {
        const read = readRunbook(dir, file);
        if ('reason' in read) problems.push(read);
        else if (runbooks.some((r) => r.id === read.id))
          problems.push({ file, line: 1, reason: `another folder already has a runbook "${read.id}"` });
        else runbooks.push(read);
      }
    }
    return new RunbookCatalog(runbooks, problems);
  }

  get(id: string): Runbook | undefined {
    return this.byId.get(id);
  }

  /** The runbooks that apply to an issue: its source, its title and every matcher on its labels hold. */
  matching(issue: Pick<Issue, 'source' | 'title' | 'labels'>): Runbook[] {
    return this.runbooks.filter(
      (r) =>
        (!r.source || r.source === issue.source) &&
        (!r.titleMatches || r.titleMatches.test(issue.title)) &&
        r.matchers.every((m) => matches(m, issue.labels)),
    );
  }
}

function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...markdownFiles(path));
    else if (entry.name.endsWith('.md') && statSync(path).isFile()) out.push(path);
  }
  return out.sort();
}

function readRunbook(dir: string, file: string): Runbook | RunbookProblem {
  const split = splitFrontMatter(readFileSync(file, 'utf8'));
  if (!split.ok) return { file, line: split.line, reason: split.reason };
  const parsed = RunbookFrontMatterSchema.safeParse(split.data ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = issue.path.length ? issue.path.join('.') : '(front matter)';
    return { file, line: split.lineOf(issue.path), reason: `${key}: ${issue.message}` };
  }
  const fm = parsed.data;
  const id = relative(dir, file).split(sep).join('/').replace(/\.md$/, '');
  try {
    return {
      id,
      file,
      title: fm.title,
      description: fm.description,
      matchers: fm.match.map((m, i) => parseMatcher(m, `match[${i}]`)),
      ...(fm.source ? { source: fm.source } : {}),
      ...(fm.titleMatches ? { titleMatches: new RegExp(fm.titleMatches, 'u') } : {}),
      body: split.body,
    };
  } catch (err) {
    return { file, line: split.lineOf(['match']), reason: (err as Error).message };
  }
}
