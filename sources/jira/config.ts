import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';

const secret = z.string().min(1);
const projectKey = z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'must be a Jira project key such as OPS');

export const JiraTriggersSchema = z.strictObject({
  /**
   * The projects Lestrade acts in: an issue created there starts an investigation (filtered by
   * the keys below), and the label and the command work there only. Empty: none, not all.
   */
  projects: z.array(projectKey).default([]),
  /** Whether a created issue (in projects, passing the filters) starts an investigation by itself. */
  onCreate: z.boolean().default(true),
  /** Only created issues of these types (by name, e.g. "Incident"). */
  issueTypes: z.array(z.string().min(1)).optional(),
  /** Only created issues carrying at least one of these labels. */
  labels: z.array(z.string().min(1)).optional(),
  /** Adding this label to an issue of one of the projects starts an investigation, when a trusted account adds it. */
  triggerLabel: z.string().min(1).default('lestrade'),
  /** A comment starting with this starts a fresh investigation of its issue. */
  command: z.string().min(1).default('/lestrade investigate'),
  /** An extra filter for created issues, checked through the API as `key = X AND (<jql>)`. */
  jql: z.string().min(1).optional(),
});

/**
 * Who may start an investigation by the label or the command: members of these groups, or actors
 * (users, or members of groups) of these project roles in the issue's project, checked through
 * Jira's API and remembered for cacheSeconds. Both empty: nobody.
 */
export const JiraTrustedSchema = z.strictObject({
  groups: z.array(z.string().min(1)).default([]),
  projectRoles: z.array(z.string().min(1)).default([]),
  cacheSeconds: z.int().min(0).max(86_400).default(300),
});

/** Jira's comment `visibility`: only members of this project role, or of this group, see the comment. */
export const JiraVisibilitySchema = z.strictObject({
  type: z.enum(['role', 'group'], { error: 'expected role or group' }),
  value: z.string().min(1, 'the name of the role or group'),
});

/** Who sees the RCA comment on one project's issues. */
export const JiraProjectSchema = z.strictObject({
  /** Restrict the comment to a project role or a group. Unset: no restriction. */
  visibility: JiraVisibilitySchema.optional(),
  /**
   * On a Jira Service Management project (projectTypeKey service_desk): make the comment internal
   * (comment property sd.public.comment = {internal: true}), so portal customers do not see it.
   */
  internal: z.boolean().default(true),
});

export const JiraPollSchema = z.strictObject({
  jql: z.string().min(1),
  everySeconds: z.int().min(30).default(300),
});

export const JiraConfigSchema = z.strictObject({
  /** The site, e.g. https://acme.atlassian.net or https://jira.example.com (a context path is kept). */
  url: z.url().optional(),
  /** Default: cloud for *.atlassian.net hosts, else datacenter. */
  deployment: z.enum(['cloud', 'datacenter']).optional(),
  email: z.string().min(1).optional(),
  apiToken: secret.optional(),
  /** Data Center personal access token, sent as a Bearer token. */
  pat: secret.optional(),
  /** HMAC secret(s) of the webhook; comma-separate several to rotate. */
  webhookSecret: secret.optional(),
  /** Shared token(s) for webhooks without a secret (basic-auth password or X-Lestrade-Token). */
  webhookToken: secret.optional(),
  triggers: JiraTriggersSchema.prefault({}),
  trusted: JiraTrustedSchema.prefault({}),
  /** Per project key: who sees the RCA comment. A project not listed: no restriction, internal on service desks. */
  projects: z
    .record(projectKey, JiraProjectSchema, {
      error: (issue) => (issue.code === 'invalid_key' ? 'must be a Jira project key such as OPS' : undefined),
    })
    .default({}),
  writeBack: z.boolean().default(true),
  /** Jira's comment limit: 32,767 characters unless a Data Center admin changed it. */
  commentLimit: z.int().min(1_000).max(10_000_000).default(32_767),
  poll: z.array(JiraPollSchema).default([]),
});
export type JiraConfig = z.infer<typeof JiraConfigSchema>;
export type JiraTriggers = z.infer<typeof JiraTriggersSchema>;
export type JiraTrusted = z.infer<typeof JiraTrustedSchema>;
export type JiraProject = z.infer<typeof JiraProjectSchema>;
export type JiraVisibility = z.infer<typeof JiraVisibilitySchema>;
export type Deployment = 'cloud' | 'datacenter';

export const JIRA_ENV: EnvBinding[] = [
  ['JIRA_URL', ['url'], 'string'],
  ['JIRA_DEPLOYMENT', ['deployment'], 'string'],
  ['JIRA_EMAIL', ['email'], 'string'],
  ['JIRA_API_TOKEN', ['apiToken'], 'string'],
  ['JIRA_PAT', ['pat'], 'string'],
  ['JIRA_WEBHOOK_SECRET', ['webhookSecret'], 'string'],
  ['JIRA_WEBHOOK_TOKEN', ['webhookToken'], 'string'],
];

export function deploymentOf(config: Pick<JiraConfig, 'url' | 'deployment'>): Deployment {
  if (config.deployment) return config.deployment;
  const host = config.url ? new URL(config.url).hostname.toLowerCase() : '';
  return host.endsWith('.atlassian.net') ? 'cloud' : 'datacenter';
}

/** The site's base URL without a trailing slash (a Data Center context path such as /jira is kept). */
export function siteOf(config: Pick<JiraConfig, 'url'>): string {
  return (config.url ?? '').replace(/\/+$/, '');
}

/** A configured Jira, ready to talk to: url and the credentials its deployment needs. */
export type JiraConnection =
  | { deployment: 'cloud'; site: string; email: string; apiToken: string }
  | { deployment: 'datacenter'; site: string; pat: string };

export function offReason(config: JiraConfig): string | null {
  if (!config.url) return 'no JIRA_URL';
  if (deploymentOf(config) === 'cloud')
    return config.email && config.apiToken ? null : 'no JIRA_EMAIL + JIRA_API_TOKEN for Jira Cloud';
  return config.pat ? null : 'no JIRA_PAT for Jira Data Center';
}

/** The connection of an on source; call only when offReason() is null. */
export function connectionOf(config: JiraConfig): JiraConnection {
  const reason = offReason(config);
  if (reason) throw new Error(`Jira is off: ${reason}`);
  const site = siteOf(config);
  return deploymentOf(config) === 'cloud'
    ? { deployment: 'cloud', site, email: config.email!, apiToken: config.apiToken! }
    : { deployment: 'datacenter', site, pat: config.pat! };
}

export function webhookWarnings(config: JiraConfig): string[] {
  const out: string[] = [];
  if (!config.webhookSecret && !config.webhookToken) {
    out.push(
      'no JIRA_WEBHOOK_SECRET or JIRA_WEBHOOK_TOKEN set: /webhooks/jira refuses every delivery (set a secret on the Jira webhook, or a shared token for Data Center webhooks without one)',
    );
  }
  if (config.webhookSecret && config.webhookToken) {
    out.push(
      'JIRA_WEBHOOK_TOKEN is not accepted while JIRA_WEBHOOK_SECRET is set: every delivery to /webhooks/jira must be signed',
    );
  }
  return out;
}

/** Said by every process that runs the Jira source. */
export function configWarnings(config: JiraConfig): string[] {
  const out: string[] = [];
  if (config.triggers.projects.length === 0) {
    out.push(
      'sources.jira.triggers.projects is empty: Jira starts no investigation (no project is configured; empty means none)',
    );
  }
  if (config.trusted.groups.length === 0 && config.trusted.projectRoles.length === 0) {
    out.push(
      `sources.jira.trusted.groups and .projectRoles are empty: nobody may start investigations with the label "${config.triggers.triggerLabel}" or the comment "${config.triggers.command}"`,
    );
  }
  return out;
}
