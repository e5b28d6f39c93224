import type { Issue } from '../../src/issue.js';
import { listAllPages } from '../ops-alerts-common/list-pages.js';
import type { PullSpec, SourceClient } from '../../src/registration/source.js';
import type { JsmOpsApi } from './api.js';
import type { JsmOpsConfig } from './config.js';
import { issueFromApiAlert, type JsmContext } from './map.js';

export const DEFAULT_PULL_QUERY = 'status: open';
/** JSM refuses offset + size of 20,000 or more. */
const MAX_OFFSET = 19_999;

export interface JsmOpsQuery {
  query: string;
  limit?: number;
}

/** Pull mode: the alerts a JSM alert search finds, newest first, every page followed (up to `limit`). */
export class JsmOpsPull implements SourceClient<JsmOpsQuery> {
  constructor(
    private readonly api: JsmOpsApi,
    private readonly ctx: JsmContext,
    private readonly pageSize = 100,
  ) {}

  async fetchIssues(q: JsmOpsQuery): Promise<Issue[]> {
    const want = q.limit ?? Infinity;
    const listed = await listAllPages(
      (offset, size) => this.api.listAlertsPage(q.query, offset, size),
      want,
      this.pageSize,
      MAX_OFFSET,
    );
    return listed.map((a) => issueFromApiAlert(a, this.ctx));
  }
}

/** `lestrade investigate jsm-ops [--query Q]` (the CLI adds -n, --update, --json-output-file). */
export function jsmOpsPull(
  apiFor: (c: JsmOpsConfig) => JsmOpsApi,
  ctxFor: (c: JsmOpsConfig) => JsmContext,
): PullSpec<JsmOpsConfig> {
  return {
    description: 'investigate the JSM Operations alerts a search query finds (GET /jsm/ops/api/{cloudId}/v1/alerts)',
    noun: 'alert',
    options: [
      {
        flags: '--query <query>',
        description: 'JSM alert search, e.g. "status: open AND priority: P1"',
        defaultValue: DEFAULT_PULL_QUERY,
      },
    ],
    prepare(config, opts) {
      const query: JsmOpsQuery = {
        query: (opts.query as string | undefined) ?? DEFAULT_PULL_QUERY,
        limit: opts.limit as number | undefined,
      };
      return { client: new JsmOpsPull(apiFor(config), ctxFor(config)), query };
    },
  };
}
