import type { Issue } from '../../src/issue.js';
import { listAllPages } from '../ops-alerts-common/list-pages.js';
import type { PullSpec, SourceClient } from '../../src/registration/source.js';
import type { OpsgenieApi } from './api.js';
import type { OpsgenieConfig } from './config.js';
import { issueFromApiAlert } from './map.js';

export const DEFAULT_PULL_QUERY = 'status:open';
/** OpsGenie refuses offset + limit beyond 20,000. */
const MAX_OFFSET = 20_000;

export interface OpsgenieQuery {
  query: string;
  limit?: number;
}

/**
 * Pull mode: the alerts an OpsGenie search query finds, newest first, every page followed (up to
 * `limit`); each is then read in full (GET /v2/alerts/{id}), as lists carry no description or details.
 */
export class OpsgeniePull implements SourceClient<OpsgenieQuery> {
  constructor(
    private readonly api: OpsgenieApi,
    private readonly apiUrl: string,
    private readonly pageSize = 100,
  ) {}

  async fetchIssues(q: OpsgenieQuery): Promise<Issue[]> {
    const want = q.limit ?? Infinity;
    const listed = await listAllPages(
      (offset, size) => this.api.listAlertsPage(q.query, offset, size),
      want,
      this.pageSize,
      MAX_OFFSET,
    );
    const issues: Issue[] = [];
    for (const a of listed) {
      const full = await this.api.getAlert(a.id);
      if (full) issues.push(issueFromApiAlert(full, { apiUrl: this.apiUrl }));
    }
    return issues;
  }
}

/** `lestrade investigate opsgenie [--query Q]` (the CLI adds -n, --update, --json-output-file). */
export function opsgeniePull(apiFor: (c: OpsgenieConfig) => OpsgenieApi): PullSpec<OpsgenieConfig> {
  return {
    description: 'investigate the OpsGenie alerts a search query finds (GET /v2/alerts)',
    noun: 'alert',
    options: [
      {
        flags: '--query <query>',
        description: 'OpsGenie alert search, e.g. "status:open priority:P1"',
        defaultValue: DEFAULT_PULL_QUERY,
      },
    ],
    prepare(config, opts) {
      const query: OpsgenieQuery = {
        query: (opts.query as string | undefined) ?? DEFAULT_PULL_QUERY,
        limit: opts.limit as number | undefined,
      };
      return { client: new OpsgeniePull(apiFor(config), config.apiUrl), query };
    },
  };
}
