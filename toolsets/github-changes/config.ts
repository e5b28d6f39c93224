import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';

/** Commits, merged pull requests and deployments of these repositories (toolsets/github-changes). */
export const GithubChangesSettingsSchema = z.strictObject({
  repos: z.array(z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'expected owner/name')).default([]),
  /** From GITHUB_TOKEN, as the GitHub source's. */
  token: z.string().min(1).optional(),
  apiUrl: z.url().default('https://api.github.com'),
});
export type GithubChangesSettings = z.infer<typeof GithubChangesSettingsSchema>;

/** Environment variables and where they land in `toolsets.github_changes`; env wins over the file. */
export const GITHUB_CHANGES_ENV: EnvBinding[] = [
  ['LESTRADE_GITHUB_CHANGES_REPOS', ['repos'], 'list'],
  ['GITHUB_TOKEN', ['token'], 'string'],
  ['GITHUB_API_URL', ['apiUrl'], 'string'],
];
