import { z } from 'zod';
import type { Tool, ToolOutput, Toolset } from '../../src/tools/types.js';
import { GitHubChangesClient, type Change, type Window } from './github-changes-client.js';
import { readsOutside } from '../../src/tools/reads-outside.js';

export interface GithubChangesConfig {
  repos: string[];
  token?: string;
  apiUrl: string;
}

/** How far before `until` the window starts when `since` is not given. */
const DEFAULT_HOURS = 24;
const KINDS = ['commits', 'pulls', 'deployments'] as const;

const time = z.string().min(1).describe('RFC 3339 timestamp (2026-01-02T15:04:05Z) or Unix seconds');

/**
 * Commits, merged pull requests and deployments of configured GitHub repositories in a window
 * (the one before an issue started). Disabled, with the reason, without repositories, without a
 * token, or when the token cannot read one of them.
 */
export function createGithubChangesToolset(cfg: GithubChangesConfig): Toolset {
  const client = cfg.token ? new GitHubChangesClient(cfg) : null;
  return {
    name: 'github_changes',
    description: 'What changed in GitHub repositories before an issue: commits, merged pull requests, deployments',
    instructions:
      "Ask what changed before the issue: call github_recent_changes with until set to the issue's start time (and " +
      'since a day or a few hours before it). Name the deployment, merged pull request or commit closest before the ' +
      'start that touches the failing component, with its time; a change after the start did not cause it.',
    origin: 'builtin',
    enabled: true,
    prerequisites: [{ kind: 'check', run: () => unusable(cfg, client) }],
    tools: readsOutside([changesTool(cfg.repos, () => client!)]),
  };
}

async function unusable(cfg: GithubChangesConfig, client: GitHubChangesClient | null): Promise<string | null> {
  if (cfg.repos.length === 0)
    return 'no repositories: set toolsets.github_changes.repos (or LESTRADE_GITHUB_CHANGES_REPOS)';
  if (!client) return 'no token: set GITHUB_TOKEN (or toolsets.github_changes.token)';
  const reasons = (await Promise.all(cfg.repos.map((r) => client.probe(r)))).filter((r): r is string => r !== null);
  return reasons.length ? `cannot read ${reasons.join('; ')}` : null;
}

function changesTool(repos: string[], client: () => GitHubChangesClient): Tool {
  return {
    name: 'github_recent_changes',
    description:
      'Commits, merged pull requests and deployments of a repository in a window, newest first: by default ' +
      `the ${DEFAULT_HOURS} hours before until (now when omitted). Set until to the issue's start to see what ` +
      `changed before it. Repositories: ${repos.join(', ') || 'none configured'}.`,
    params: z.strictObject({
      repo: z.string().optional().describe(`owner/name, one of the configured repositories (default: the first)`),
      since: time.optional().describe(`start of the window (default ${DEFAULT_HOURS}h before until)`),
      until: time.optional().describe('end of the window (default now)'),
      include: z.array(z.enum(KINDS)).min(1).optional().describe('which changes (default all three)'),
      branch: z.string().min(1).optional().describe('commits of this branch (default the default branch)'),
      environment: z.string().min(1).optional().describe('deployments to this environment only'),
      limit: z.int().min(1).max(100).default(30).describe('most changes of each kind (default 30)'),
    }),
    run: async (p, _ctx): Promise<ToolOutput> => {
      const repo = (p.repo as string | undefined) ?? repos[0];
      if (!repo || !repos.includes(repo))
        return { status: 'error', error: `repo must be one of the configured repositories: ${repos.join(', ')}` };
      const w = window(p.since as string | undefined, p.until as string | undefined);
      const include = new Set((p.include as string[] | undefined) ?? KINDS);
      const limit = p.limit as number;
      const c = client();
      const parts = await Promise.all([
        include.has('commits') ? c.commits(repo, w, limit, p.branch as string | undefined) : [],
        include.has('pulls') ? c.mergedPulls(repo, w, limit) : [],
        include.has('deployments') ? c.deployments(repo, w, limit, p.environment as string | undefined) : [],
      ]);
      return timeline(repo, w, parts, limit);
    },
  };
}

function window(since: string | undefined, until: string | undefined): Window {
  const end = until === undefined ? new Date() : parseTime('until', until);
  const start = since === undefined ? new Date(end.getTime() - DEFAULT_HOURS * 3_600_000) : parseTime('since', since);
  if (start >= end) throw new Error('since must be before until');
  return { since: start, until: end };
}

function parseTime(name: string, value: string): Date {
  const ms = /^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value);
  if (!/^\d/.test(value) || !Number.isFinite(ms))
    throw new Error(`${name}: "${value}" is neither an RFC 3339 timestamp nor Unix seconds`);
  return new Date(ms);
}

function timeline(repo: string, w: Window, parts: Change[][], limit: number): ToolOutput {
  const all = parts.flat().sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  const range = `${w.since.toISOString()} to ${w.until.toISOString()}`;
  if (all.length === 0)
    return { status: 'no_data', message: `no commits, merged pull requests or deployments in ${repo}, ${range}` };
  const [commits, pulls, deployments] = parts.map((x) => x.length);
  const lines = [
    `${repo}, ${range}, newest first:`,
    ...all.map((c) => `${c.at} ${c.text}`),
    `(${commits} commits, ${pulls} merged pull requests, ${deployments} deployments; at most ${limit} of each)`,
  ];
  return { status: 'success', data: lines.join('\n') };
}
