import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';

const secret = z.string().min(1);
/** "owner/name", as GitHub spells a repository. */
export const repoName = z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'expected owner/name');

export const AUTHOR_ASSOCIATIONS = [
  'OWNER',
  'MEMBER',
  'COLLABORATOR',
  'CONTRIBUTOR',
  'FIRST_TIME_CONTRIBUTOR',
  'FIRST_TIMER',
  'MANNEQUIN',
  'NONE',
] as const;

export const GitHubConfigSchema = z.strictObject({
  /** A personal access token or any token GitHub accepts as `Authorization: token …`. */
  token: secret.optional(),
  /** A GitHub App installation; all three are needed. privateKey is PEM text or a file path. */
  app: z
    .strictObject({
      appId: z.union([z.int().positive(), secret]).optional(),
      privateKey: secret.optional(),
      installationId: z.int().positive().optional(),
    })
    .optional(),
  /** REST API base: https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server. */
  apiUrl: z.url().default('https://api.github.com'),
  /** Secret(s) for X-Hub-Signature-256; comma-separate several to rotate. */
  webhookSecret: secret.optional(),
  /** Adding this label to an issue starts an investigation. */
  triggerLabel: z.string().min(1).default('lestrade'),
  /** A comment starting with this re-investigates the issue. */
  command: z.string().min(1).default('/lestrade investigate'),
  /** Comment authors (author_association) whose command is obeyed. */
  trustedAssociations: z.array(z.enum(AUTHOR_ASSOCIATIONS)).default(['OWNER', 'MEMBER', 'COLLABORATOR']),
  /** Public repositories are ignored unless listed here (or true for all). */
  allowPublicRepos: z.union([z.boolean(), z.array(repoName)]).default(false),
  repos: z
    .record(
      repoName,
      z.strictObject({
        triggerLabel: z.string().min(1).optional(),
        enabled: z.boolean().optional(),
      }),
    )
    .default({}),
  /** Post the RCA as a comment on the issue. */
  writeBack: z.boolean().default(true),
  poll: z
    .array(
      z.strictObject({
        repo: repoName,
        /** Search qualifiers; default `is:open label:<triggerLabel>`. */
        query: z.string().min(1).optional(),
        everySeconds: z.int().min(10).default(300),
      }),
    )
    .default([]),
});
export type GitHubConfig = z.infer<typeof GitHubConfigSchema>;

export const GITHUB_ENV: EnvBinding[] = [
  ['GITHUB_TOKEN', ['token'], 'string'],
  ['GITHUB_APP_ID', ['app', 'appId'], 'string'],
  ['GITHUB_APP_PRIVATE_KEY', ['app', 'privateKey'], 'string'],
  ['GITHUB_APP_INSTALLATION_ID', ['app', 'installationId'], 'int'],
  ['GITHUB_API_URL', ['apiUrl'], 'string'],
  ['GITHUB_WEBHOOK_SECRET', ['webhookSecret'], 'string'],
];

export interface AppCredentials {
  appId: number | string;
  privateKey: string;
  installationId: number;
}

/** The App credentials when all three are set. */
export function appCredentials(c: GitHubConfig): AppCredentials | null {
  const a = c.app;
  return a?.appId !== undefined && a.privateKey && a.installationId !== undefined
    ? { appId: a.appId, privateKey: a.privateKey, installationId: a.installationId }
    : null;
}

export function disabledReason(c: GitHubConfig): string | null {
  if (c.token || appCredentials(c)) return null;
  const missing = c.app
    ? (['appId', 'privateKey', 'installationId'] as const).filter((k) => c.app?.[k] === undefined)
    : [];
  const detail = missing.length ? ` (sources.github.app lacks ${missing.join(', ')})` : '';
  return `no GITHUB_TOKEN or GitHub App credentials${detail}`;
}
