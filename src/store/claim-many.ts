import { randomUUID } from 'node:crypto';
import type { Issue } from '../issue.js';
import { QUEUE_NAME } from '../redis/queue-names.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { Redactor } from '../redact.js';
import { CLAIM_MANY, parseClaimReply, type ClaimReply } from './claim-script.js';
import { keysOf } from '../redis/keys.js';
import { encodeField } from '../redis/lossless.js';
import { recordFirings, type Firing } from './firings.js';

/** One issue of a delivery: an open one to claim (as queued, skipped or linked), or a resolved one. */
export type ClaimItem =
  | {
      kind: 'claim';
      issue: Issue;
      status: 'queued' | 'skipped' | 'linked';
      priority: number;
      linkTo?: string[];
      skippedBy?: string;
      /** Seen claimed before by this process: sent without its record (a repeat costs a lookup); 'unknown' if it is not. */
      known?: boolean;
    }
  | { kind: 'resolve'; issue: Pick<Issue, 'source' | 'identity' | 'fingerprint'> };

export interface ClaimManyOptions {
  dedupTtlSeconds: number;
  retentionSeconds: number;
  redact: Redactor;
  /** Field/value pairs for HSET, redacted and lossless, as the store writes every record. */
  encode(fields: Record<string, string>): string[];
}

/** Claims and resolves a whole delivery in one round trip (see claim-script.ts). */
export async function claimMany(
  redis: RedisClient,
  items: readonly ClaimItem[],
  opts: ClaimManyOptions,
  now = new Date(),
): Promise<{ items: ClaimReply[]; undispatched: number }> {
  if (items.length === 0) return { items: [], undispatched: 0 };
  const keys = keysOf(redis);
  const PLACEHOLDER = keys.placeholder();
  const keyList: string[] = [keys.index(), keys.idIndex()];
  const args: Array<string | number> = [
    now.getTime(),
    opts.dedupTtlSeconds,
    opts.retentionSeconds,
    now.getTime() - opts.retentionSeconds * 1000,
    keys.investigation(''),
    `${keys.queuePrefix}:${QUEUE_NAME}:`,
    now.toISOString(),
    items.length,
    keys.dispatch(),
  ];
  for (const item of items) {
    keyList.push(
      keys.dedup(item.issue.source, item.issue.identity),
      keys.latest(item.issue.source, item.issue.fingerprint),
    );
    if (item.kind === 'resolve') {
      keyList.push(PLACEHOLDER, PLACEHOLDER);
      args.push('r', '', '', item.issue.fingerprint, 0, '', 0);
      continue;
    }
    const { issue } = item;
    if (item.known) {
      keyList.push(PLACEHOLDER, PLACEHOLDER);
      args.push('l', '', item.status, issue.fingerprint, item.priority, '', 0);
      continue;
    }
    const id = randomUUID();
    const group = item.status === 'queued' ? item.issue.group : undefined;
    keyList.push(group ? keys.group(issue.source, group.key) : PLACEHOLDER, keys.investigation(id));
    // Redacted and serialised once: the record's issue and, for a group, its member entry.
    const json = redactedJson(issue, opts.redact);
    const fields = opts.encode(recordFields(id, item, json, now, group));
    const member = group ? encodeField(json) : '';
    args.push('c', id, item.status, issue.fingerprint, item.priority, member, fields.length, ...fields);
  }
  const reply = parseClaimReply(await CLAIM_MANY.run(redis, keyList, args));
  await recordFirings(redis, newFirings(items, reply.items, now), opts.retentionSeconds);
  return reply;
}

/** The items that became an investigation or joined a group's: each a firing of its fingerprint (firings.ts). */
function newFirings(items: readonly ClaimItem[], replies: readonly ClaimReply[], now: Date): Firing[] {
  return items.flatMap((item, i) => {
    const r = replies[i];
    if (item.kind !== 'claim' || !r || (r.code !== 'created' && r.code !== 'joined')) return [];
    return [{ source: item.issue.source, fingerprint: item.issue.fingerprint, id: r.id, atMs: now.getTime() }];
  });
}

function recordFields(
  id: string,
  item: Extract<ClaimItem, { kind: 'claim' }>,
  issueJson: string,
  now: Date,
  group: Issue['group'],
): Record<string, string> {
  const { issue } = item;
  const at = now.toISOString();
  return {
    id,
    source: issue.source,
    identity: issue.identity,
    title: group?.title ?? issue.title,
    severity: issue.severity,
    status: item.status,
    issueStatus: issue.status,
    createdAt: at,
    updatedAt: at,
    issue: issueJson,
    attempts: '0',
    priority: String(item.priority),
    // Small copies of what quality figures group by (quality/), so they never parse the whole issue.
    fingerprint: issue.fingerprint,
    ...(issue.labels.alertname ? { alertName: issue.labels.alertname } : {}),
    ...(item.linkTo?.length ? { linkedTo: JSON.stringify(item.linkTo) } : {}),
    ...(item.skippedBy ? { skippedBy: item.skippedBy, finishedAt: at } : {}),
    ...(group
      ? { group: group.key, quietMs: String(group.quietSeconds * 1000), maxWaitMs: String(group.maxWaitSeconds * 1000) }
      : {}),
  };
}

/** JSON of a value with every secret redacted; copied for redaction only when the text holds one (rare). */
function redactedJson(value: unknown, redact: Redactor): string {
  const text = JSON.stringify(value);
  // The redactor knows each secret raw and JSON-escaped: untouched text holds none.
  return redact(text) === text ? text : JSON.stringify(redact.deep(value));
}
