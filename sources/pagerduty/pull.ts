import { ConfigError } from '../../src/errors.js';
import type { Issue } from '../../src/issue.js';
import type { PullSpec, SourceClient, SourceContext } from '../../src/registration/source.js';
import { MAX_PAGE, type IncidentQuery, type PagerDutyApi } from './api.js';
import type { PagerDutyConfig } from './config.js';
import { toIssue } from './map.js';
import type { PdIncident } from './schema.js';

export const DEFAULT_STATUSES = ['triggered', 'acknowledged'] as const;
const STATUSES = new Set(['triggered', 'acknowledged', 'resolved']);

export interface PdPullQuery extends IncidentQuery {
  limit?: number;
}

/** Pull mode: the incidents a query finds, each with its alerts, investigated as asked (no trigger filters). */
export class PagerDutyPull implements SourceClient<PdPullQuery> {
  constructor(
    private readonly api: PagerDutyApi,
    private readonly pageSize = MAX_PAGE,
  ) {}

  async fetchIssues(query: PdPullQuery): Promise<Issue[]> {
    const incidents = await this.incidents(query, query.limit ?? Infinity);
    const issues: Issue[] = [];
    for (const incident of incidents) {
      const alerts = (await this.api.listAlerts(incident.id)).items;
      issues.push(toIssue(incident, alerts, { instance: this.api.host }));
    }
    return issues;
  }

  /** Page after page (offset/limit) while PagerDuty says `more`, until `limit` are in hand. */
  private async incidents(query: IncidentQuery, limit: number): Promise<PdIncident[]> {
    const out: PdIncident[] = [];
    for (let offset = 0; out.length < limit;) {
      const page = await this.api.listIncidents(query, offset, Math.min(this.pageSize, limit - out.length));
      out.push(...page.items);
      if (!page.more || page.items.length === 0) break;
      offset += page.items.length;
    }
    return out.slice(0, limit);
  }
}

/** `--statuses a,b` checked against PagerDuty's incident statuses. */
export function parseStatuses(value: string): string[] {
  const list = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.filter((s) => !STATUSES.has(s));
  if (bad.length || list.length === 0)
    throw new ConfigError(`--statuses ${value}: expected a comma-separated list of triggered, acknowledged, resolved`);
  return list;
}

/** The statuses to ask for: `--statuses` when given, else none with `--incident-key` (any status), else the default. */
function statusesOf(value: unknown, incidentKey: string | undefined): string[] | undefined {
  if (typeof value === 'string') return parseStatuses(value);
  return incidentKey ? undefined : [...DEFAULT_STATUSES];
}

/** `lestrade investigate pagerduty [--incident-key K | --statuses S] [--service ID ...]` (the CLI adds -n, --update, --json-output-file). */
export function pagerdutyPull(
  apiFor: (c: PagerDutyConfig, ctx: SourceContext) => PagerDutyApi,
): PullSpec<PagerDutyConfig> {
  return {
    description: 'investigate PagerDuty incidents (GET /incidents), each with its alerts',
    noun: 'incident',
    options: [
      {
        flags: '--incident-key <key>',
        description: 'only the incident with this incident key (any status unless --statuses is given)',
      },
      {
        flags: '--statuses <list>',
        description: `incident statuses, comma-separated (default ${DEFAULT_STATUSES.join(',')})`,
      },
      {
        flags: '--service <id>',
        description: 'only incidents of this service id (repeat for several)',
        repeatable: true,
      },
    ],
    prepare(config, opts, ctx) {
      const incidentKey = opts.incidentKey as string | undefined;
      const statuses = statusesOf(opts.statuses, incidentKey);
      const services = (opts.service as string[] | undefined) ?? [];
      const badService = services.find((s) => !/^[A-Z0-9]+$/.test(s));
      if (badService) throw new ConfigError(`--service ${badService}: expected a PagerDuty service id such as PIJ90N7`);
      const query: PdPullQuery = {
        statuses,
        serviceIds: services.length ? services : undefined,
        incidentKey,
        limit: opts.limit as number | undefined,
      };
      return { client: new PagerDutyPull(apiFor(config, ctx)), query };
    },
  };
}
