import type { IssueLocator } from '../../src/issue.js';
import type { JiraProject } from './config.js';

/**
 * The comment property Jira Service Management reads: `{internal: true}` keeps a comment to agents
 * (an "internal note"), off the customer portal and out of customer notifications.
 */
export const SD_PUBLIC_COMMENT = 'sd.public.comment';

/** What JSM calls a service desk project, as `fields.project.projectTypeKey`. */
export const SERVICE_DESK = 'service_desk';

/**
 * Jira's comment `visibility` as a request sends it: `role` or `group` with its name (`value`), or
 * a group's id (`identifier`, Cloud) when a comment of ours already names its group that way.
 */
export interface Visibility {
  type: string;
  value?: string;
  identifier?: string;
}

/** Who may see an RCA comment of ours. */
export interface CommentAccess {
  /** Only this project role's actors, or this group's members. */
  visibility?: Visibility;
  /** Set `sd.public.comment = {internal: true}`. */
  internal: boolean;
  /** The config key the visibility came from, for the error when Jira refuses it. */
  configKey?: string;
}

/**
 * The access for a comment on an issue of `project`: the configured visibility, and internal on a
 * service desk (or a project of unknown type: the property means nothing elsewhere) unless
 * `internal: false` is configured.
 */
export function accessFor(
  projects: Readonly<Record<string, JiraProject>>,
  project: string,
  projectType: string | null,
): CommentAccess {
  const p = Object.hasOwn(projects, project) ? projects[project] : undefined;
  const serviceDesk = projectType === null || projectType === SERVICE_DESK;
  const access: CommentAccess = { internal: serviceDesk && (p?.internal ?? true) };
  if (p?.visibility) {
    access.visibility = p.visibility;
    access.configKey = `sources.jira.projects.${project}.visibility`;
  }
  return access;
}

/**
 * The access for an edit of a comment that has `current` visibility: the configured one wins;
 * with none configured the comment keeps its own (set by hand, or by an earlier config), since an
 * edit that omits `visibility` may make it public. The JSM property is only ever set to internal,
 * never to public, so an internal comment stays internal.
 */
export function keepOnEdit(access: CommentAccess, current: Visibility | null | undefined): CommentAccess {
  if (access.visibility || !current) return access;
  return { ...access, visibility: current };
}

/** The fields of a comment create or edit request that carry the access (our marker property is added apart). */
export function accessRequestFields(access: CommentAccess): {
  visibility?: Visibility;
  properties: Array<{ key: string; value: unknown }>;
} {
  const properties = access.internal ? [{ key: SD_PUBLIC_COMMENT, value: { internal: true } }] : [];
  const v = access.visibility;
  if (!v) return { properties };
  const visibility: Visibility = { type: v.type };
  if (v.value !== undefined) visibility.value = v.value;
  if (v.identifier !== undefined) visibility.identifier = v.identifier;
  return { visibility, properties };
}

/** The project and its type as the locator carries them (older locators: the key's prefix, type unknown). */
export function projectOfLocator(locator: IssueLocator): { project: string; projectType: string | null } {
  const { project, projectType, issueKey } = locator.ref;
  const key = typeof issueKey === 'string' ? issueKey : locator.key;
  return {
    project: typeof project === 'string' && project ? project : key.replace(/-\d+$/, ''),
    projectType: typeof projectType === 'string' && projectType ? projectType : null,
  };
}
