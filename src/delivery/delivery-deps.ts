import type { Logger } from '../log.js';
import type { Metrics } from '../observability/metrics.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { RcaWriter } from '../registration/rca-writer.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { RunControl } from '../store/run-control.js';
import type { Investigation } from '../store/investigation.js';
import type { Destination } from './destination.js';

/** What every delivery needs, to a source's own issue or to a routed destination. */
export interface DeliveryDeps {
  redis: RedisClient;
  store: InvestigationStore;
  /** The write-back of every source that has one and is on, by source name. */
  writers: ReadonlyMap<string, RcaWriter>;
  /** Every destination that is on, by registration name. */
  destinations: ReadonlyMap<string, Destination>;
  log: Logger;
  publicUrl?: string;
  /** writeBack.linkHosts and writeBack.allowMentions (see commentFor), for comments and destinations alike. */
  linkHosts?: readonly string[];
  allowMentions?: boolean;
  retentionSeconds: number;
  /** Counts each write-back attempt by target (the source written to) and outcome. */
  metrics?: Metrics;
  /** The decisions of a paused turn, shown beside its pending calls; without it none are shown. */
  runs?: Pick<RunControl, 'outcome'>;
  /**
   * Where the placeholders of redaction are mapped back to the values (`redaction.restoreIn`): here `destinations`
   * (Slack, Teams, webhooks, ...) and `tickets` (the comment on the source's issue); elsewhere they stay.
   */
  restoreIn?: readonly string[];
}

/** The record as `place` may show it: placeholders mapped back when restoreIn lists the place, else as stored. */
export async function recordFor(
  deps: Pick<DeliveryDeps, 'store' | 'restoreIn'>,
  place: 'destinations' | 'tickets',
  inv: Investigation,
): Promise<Investigation> {
  return deps.restoreIn?.includes(place) ? deps.store.restored(inv) : inv;
}
