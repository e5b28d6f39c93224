import type { Logger } from '../log.js';
import type { Metrics } from '../observability/metrics.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { RcaWriter } from '../registration/rca-writer.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { RunControl } from '../store/run-control.js';
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
}
