import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import nunjucks from 'nunjucks';
import { ConfigError } from '../errors.js';
import type { Issue } from '../issue.js';

export const BUILTIN_TEMPLATES_DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

const TEMPLATE_NAMES = ['system', 'investigate', 'check'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

/** What templates are rendered against once when loaded: every field of an Issue set, as a real alert would. */
export const SAMPLE_ISSUE: Issue = {
  identity: '0123456789abcdef@2026-01-01T00:00:00Z',
  fingerprint: '0123456789abcdef',
  source: 'alertmanager',
  sourceInstance: 'http://alertmanager:9093',
  title: 'KubePodCrashLooping: Pod api-0 is crash looping',
  description: 'Pod prod/api-0 restarted 5 times in 10 minutes.',
  url: 'http://alertmanager:9093/#/alerts',
  severity: 'critical',
  status: 'open',
  labels: { alertname: 'KubePodCrashLooping', severity: 'critical', namespace: 'prod', pod: 'api-0' },
  annotations: {
    summary: 'Pod api-0 is crash looping',
    description: 'Pod prod/api-0 restarted 5 times',
    runbook_url: 'https://runbooks.example/crashloop',
  },
  startedAt: '2026-01-01T00:00:00Z',
  related: [],
  locator: { key: 'OPS-1', ref: { key: 'OPS-1' } },
  untrusted: [{ label: 'comment by @someone', text: 'It started after the deploy.' }],
  raw: {},
};

/** Past incidents as a prompt gets them, every verdict once: what templates are rendered against when loaded. */
const SAMPLE_SIMILAR: NonNullable<PromptContext['similar']> = [
  {
    title: 'KubePodCrashLooping: api-1',
    date: '2025-12-30',
    verdict: 'correct',
    rootCause: 'A bad config map.',
    byPerson: false,
    confirmedBy: 'alice',
    sameAlert: true,
  },
  {
    title: 'KubePodCrashLooping: api-2',
    date: '2025-12-20',
    verdict: 'wrong',
    rootCause: 'The node ran out of memory.',
    byPerson: true,
    confirmedBy: 'bob',
    sameAlert: false,
  },
  {
    title: 'KubePodCrashLooping: api-3',
    date: '2025-12-10',
    verdict: null,
    rootCause: 'A slow database.',
    byPerson: false,
    confirmedBy: null,
    sameAlert: false,
  },
];

export interface PromptContext {
  issue: Issue;
  /** The toolsets the model has; `instructions` are trusted text (our files, the operators' config). */
  toolsets: Array<{ name: string; description: string; instructions?: string }>;
  /** The toolsets it does not have, with why, so it does not ask for them. */
  unavailableToolsets?: Array<{ name: string; reason: string }>;
  /** The operators' runbooks that match the issue: instructions from the operators, listed outside the fence. */
  runbooks?: Array<{ id: string; title: string; description: string }>;
  /**
   * Similar past incidents from memory (docs/memory.md), best first: listed inside the fence, as their
   * titles and root causes are third-party text. `byPerson`: the root cause is a person's correction.
   */
  similar?: Array<{
    title: string;
    date: string;
    verdict: 'correct' | 'partly' | 'wrong' | null;
    rootCause: string;
    byPerson: boolean;
    confirmedBy: string | null;
    sameAlert: boolean;
  }>;
  now: string;
  /**
   * Sections the answer must have instead of the four (title, what goes in it): an eval case's HolmesGPT request
   * asks for its own. Trusted text, as the templates are.
   */
  sections?: Array<{ title: string; description: string }>;
  /** A health check's run (docs/checks.md): what its question is about, and the deploy that started it. */
  check?: { toolsets: string[]; instance: string | null; deploy: string | null };
}

/**
 * Renders the system and investigate prompts. A user's templates directory is searched
 * first, so a file there with a built-in's name replaces it.
 */
export class PromptRenderer {
  private readonly env: nunjucks.Environment;

  constructor(userDir?: string) {
    const dirs = userDir ? [userDir, BUILTIN_TEMPLATES_DIR] : [BUILTIN_TEMPLATES_DIR];
    this.env = new nunjucks.Environment(new nunjucks.FileSystemLoader(dirs, { noCache: false }), {
      autoescape: false,
      throwOnUndefined: false,
      trimBlocks: true,
      lstripBlocks: true,
    });
    this.env.addFilter('unfence', unfence);
    // A broken template is a configuration error: found now, at start-up, not by every investigation.
    const sample = {
      issue: SAMPLE_ISSUE,
      toolsets: [{ name: 'sample', description: 'a sample toolset', instructions: 'Use it first.\nThen the rest.' }],
      unavailableToolsets: [{ name: 'other', reason: 'prerequisite not met: sample not found' }],
      runbooks: [{ id: 'sample/runbook', title: 'A sample runbook', description: 'what it is for' }],
      similar: SAMPLE_SIMILAR,
      now: SAMPLE_ISSUE.startedAt,
    };
    for (const name of TEMPLATE_NAMES) this.render(name, sample);
  }

  /**
   * `fence` is a fresh random tag per render: third-party text is wrapped in
   * <untrusted-TAG>…</untrusted-TAG>, and cannot close the fence because it cannot know the tag
   * (the `unfence` filter also removes it from the text, should it ever appear).
   * A template that fails throws a ConfigError naming it and the line: retrying cannot fix it.
   */
  render(name: TemplateName, ctx: PromptContext): string {
    const file = `${name}.jinja2`;
    let template: nunjucks.Template;
    try {
      template = this.env.getTemplate(file, true);
    } catch (err) {
      throw new ConfigError(`template ${file} ${templateErrorAt(err as Error, 'parse')}`);
    }
    try {
      return template.render({ ...ctx, fence: randomBytes(6).toString('hex') }).trim();
    } catch (err) {
      throw new ConfigError(`template ${file} ${templateErrorAt(err as Error, 'render')}`);
    }
  }
}

/**
 * "(path), line N: reason" from nunjucks' "(path) [Line N, Column C]\n  reason". A syntax error
 * counts lines from 1 (none at the end of the file); a render error counts them from 0 and
 * leaves the first line's out.
 */
export function templateErrorAt(err: Error, kind: 'parse' | 'render'): string {
  const m = /^\(([^\n]*?)\)(?: \[Line (\d+), Column \d+\])?\n\s*(?:Error: )?([\s\S]*)$/.exec(err.message);
  if (!m) return `: ${err.message}`;
  const line = kind === 'render' ? Number(m[2] ?? 0) + 1 : m[2];
  return `(${m[1]})${line === undefined ? '' : `, line ${line}`}: ${m[3]!.trim()}`;
}

function unfence(text: unknown, fence: string): string {
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- as nunjucks itself prints a value
  const s = String(text ?? '');
  return fence ? s.split(`untrusted-${fence}`).join('untrusted-(removed)') : s;
}
