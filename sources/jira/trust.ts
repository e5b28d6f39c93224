import type { JiraTrusted } from './config.js';
import type { JiraApi } from './jira-api.js';
import type { JiraUser } from './schema.js';

/**
 * Who may start an investigation by the label or the command: a member of a configured group, or
 * an actor of a configured project role in the project (as a user, or through a group).
 * Asked through Jira's API; each answer is remembered for cacheSeconds. Null when trusted, else
 * why not. An API failure is thrown (a retryable one makes the webhook answer 503).
 */
export class JiraTrust {
  private readonly cache = new Map<string, { until: number; reason: string | null }>();

  constructor(
    private readonly api: JiraApi,
    private readonly trusted: JiraTrusted,
    private readonly now: () => number = Date.now,
  ) {}

  async refusal(user: JiraUser | null | undefined, projectKey: string): Promise<string | null> {
    const t = this.trusted;
    if (t.groups.length === 0 && t.projectRoles.length === 0) {
      return 'sources.jira.trusted.groups and .projectRoles are empty: nobody may start investigations by label or command';
    }
    const id = user?.accountId || user?.name;
    if (!user || !id) return 'the event names no account';
    const key = `${id}\u0000${projectKey}`;
    const hit = this.cache.get(key);
    if (hit && hit.until > this.now()) return hit.reason;
    const reason = (await this.isTrusted(user, id, projectKey))
      ? null
      : `${user.displayName ?? id} is in none of sources.jira.trusted.groups or .projectRoles of project ${projectKey}`;
    this.cache.set(key, { until: this.now() + t.cacheSeconds * 1000, reason });
    return reason;
  }

  private async isTrusted(user: JiraUser, id: string, projectKey: string): Promise<boolean> {
    const groups = new Set(await this.api.userGroups(user));
    if (this.trusted.groups.some((g) => groups.has(g))) return true;
    if (this.trusted.projectRoles.length === 0) return false;
    const roles = await this.api.projectRoles(projectKey);
    for (const name of this.trusted.projectRoles) {
      const roleId = roles.get(name);
      if (roleId === undefined) continue;
      const actors = await this.api.roleActors(projectKey, roleId);
      if (actors.users.includes(id) || actors.groups.some((g) => groups.has(g))) return true;
    }
    return false;
  }
}
