import type { RedisClient } from '../redis/redis-connections.js';
import type { Redactor } from '../redact.js';
import type { WriteBackRecord } from '../records/write-back-record.js';
import { updateRecord } from './record-fields.js';

/** The field of a routed destination's write-back record: its name after this prefix. */
const DESTINATION_FIELD = 'wb:';

/** Where an investigation's RCA was (or is being) written: its own issue's source, and each routed destination. */
export class WriteBackRecords {
  constructor(
    private readonly redis: RedisClient,
    private readonly redact: Redactor,
  ) {}

  /** Records the state of the investigation's write-back to its own issue (one per investigation). */
  async saveWriteBack(id: string, record: WriteBackRecord): Promise<boolean> {
    return updateRecord(this.redis, this.redact, id, {
      writeBacks: JSON.stringify([record]),
      updatedAt: new Date().toISOString(),
    });
  }

  /** Records the state of one routed destination's write-back: a field of its own, so destinations never race. */
  async saveDestinationWriteBack(id: string, record: WriteBackRecord & { destination: string }): Promise<boolean> {
    return updateRecord(this.redis, this.redact, id, {
      [`${DESTINATION_FIELD}${record.destination}`]: JSON.stringify(record),
    });
  }
}

/** The write-back to the issue's own source first, then each routed destination's, by name. */
export function writeBacksOf(h: Record<string, string>): WriteBackRecord[] {
  const own = JSON.parse(h.writeBacks ?? '[]') as WriteBackRecord[];
  const routed = Object.keys(h)
    .filter((k) => k.startsWith(DESTINATION_FIELD))
    .sort()
    .map((k) => JSON.parse(h[k]!) as WriteBackRecord);
  return [...own, ...routed];
}
