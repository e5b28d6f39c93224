import type { Issue } from '../../src/issue.js';
import type { PullSpec, SourceClient } from '../../src/registration/source.js';
import { listAllPages, type AlertPage } from './list-pages.js';

export interface AlertQuery {
  query: string;
  limit?: number;
}

/** The API's alert search: one page, newest first. */
export interface AlertSearch<A> {
  listAlertsPage(query: string | undefined, offset: number, size: number): Promise<AlertPage<A>>;
}

/**
 * Pull mode: the alerts a search query finds, newest first, every page followed (up to `limit`)
 * and never past `maxOffset`; `issuesOf` turns what was listed into issues.
 */
export abstract class AlertSearchPull<A> implements SourceClient<AlertQuery> {
  constructor(
    private readonly search: AlertSearch<A>,
    private readonly maxOffset: number,
    private readonly pageSize: number,
  ) {}

  async fetchIssues(q: AlertQuery): Promise<Issue[]> {
    const want = q.limit ?? Infinity;
    const listed = await listAllPages(
      (offset, size) => this.search.listAlertsPage(q.query, offset, size),
      want,
      this.pageSize,
      this.maxOffset,
    );
    return this.issuesOf(listed);
  }

  protected abstract issuesOf(listed: A[]): Promise<Issue[]>;
}

/** What `lestrade investigate <source>` says of itself, and the query it runs when none is given. */
export interface AlertPullText {
  description: string;
  /** The --query option's help, with an example. */
  queryHelp: string;
  defaultQuery: string;
}

/** `lestrade investigate <source> [--query Q]` (the CLI adds -n, --update, --json-output-file). */
export function alertPullSpec<C>(text: AlertPullText, clientFor: (config: C) => SourceClient<AlertQuery>): PullSpec<C> {
  return {
    description: text.description,
    noun: 'alert',
    options: [{ flags: '--query <query>', description: text.queryHelp, defaultValue: text.defaultQuery }],
    prepare(config, opts) {
      const query: AlertQuery = {
        query: (opts.query as string | undefined) ?? text.defaultQuery,
        limit: opts.limit as number | undefined,
      };
      return { client: clientFor(config), query };
    },
  };
}
