import type { WebClient } from '@slack/web-api';
import { slackCall } from './slack-client.js';

/** How long a user group's members are remembered before usergroups.users.list is asked again. */
const GROUP_CACHE_MS = 5 * 60_000;

export type ApproverVerdict = { ok: true } | { ok: false; why: string };

/**
 * `destinations.slack.approvers`: user ids count as they are; a user group (S…) counts its members,
 * read with usergroups.users.list (scope usergroups:read) and cached for five minutes.
 */
export class Approvers {
  private readonly users: Set<string>;
  private readonly groups: string[];
  private readonly cache = new Map<string, { members: Set<string>; at: number }>();

  constructor(
    private readonly client: WebClient,
    list: readonly string[],
    private readonly now: () => number = Date.now,
  ) {
    this.users = new Set(list.filter((id) => !id.startsWith('S')));
    this.groups = list.filter((id) => id.startsWith('S'));
  }

  async check(userId: string): Promise<ApproverVerdict> {
    if (this.users.has(userId)) return { ok: true };
    const failures: string[] = [];
    for (const group of this.groups) {
      try {
        if ((await this.members(group)).has(userId)) return { ok: true };
      } catch (err) {
        failures.push(`${group}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    const not = `you (${userId}) are not among the approvers: add your user id or a user group of yours to destinations.slack.approvers`;
    return { ok: false, why: failures.length ? `${not} (could not read user group ${failures.join('; ')})` : not };
  }

  private async members(group: string): Promise<Set<string>> {
    const hit = this.cache.get(group);
    if (hit && this.now() - hit.at < GROUP_CACHE_MS) return hit.members;
    const r = await slackCall(() => this.client.usergroups.users.list({ usergroup: group }), null);
    const members = new Set(r.users ?? []);
    this.cache.set(group, { members, at: this.now() });
    return members;
  }
}
