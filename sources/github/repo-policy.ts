import type { GitHubConfig } from './config.js';

/** What the config says about one repository. GitHub names are case-insensitive, so lookups are too. */
export interface RepoPolicy {
  enabled: boolean;
  triggerLabel: string;
}

export function repoPolicy(c: GitHubConfig, fullName: string): RepoPolicy {
  const wanted = fullName.toLowerCase();
  const override = Object.entries(c.repos).find(([name]) => name.toLowerCase() === wanted)?.[1];
  return { enabled: override?.enabled ?? true, triggerLabel: override?.triggerLabel ?? c.triggerLabel };
}

/** Public repositories are opt-in: anyone can write there, and our comment would be public. */
export function publicRepoAllowed(c: GitHubConfig, fullName: string): boolean {
  if (typeof c.allowPublicRepos === 'boolean') return c.allowPublicRepos;
  const wanted = fullName.toLowerCase();
  return c.allowPublicRepos.some((name) => name.toLowerCase() === wanted);
}

export function publicRepoRefusal(fullName: string): string {
  return `github: ${fullName} is public; set sources.github.allowPublicRepos to post there`;
}

export function sameLabel(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** A label as a search qualifier, quoted when it has spaces. */
export function labelQualifier(label: string): string {
  return /[\s"]/.test(label) ? `label:"${label.replace(/"/g, '')}"` : `label:${label}`;
}
