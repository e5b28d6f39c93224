/**
 * 100,000 memory records shaped like a year of a large estate's incidents: the alert kinds of the
 * labelled set (tests/fixtures/memory/families.ts) over 2,000 workloads in 200 namespaces and three
 * clusters, and one record in ten a ticket with a title of common words. Deterministic.
 */
import type { MemoryQuery, MemoryRecord } from '../../src/memory/memory-record.js';
import { ALERT_KINDS, type Workload } from '../../tests/fixtures/memory/families.js';

const DAY = 86_400_000;
const CLUSTERS = ['prod-eu-1', 'prod-us-1', 'prod-ap-1'];
const WORDS = `checkout payment order invoice refund login session search index image upload export import report
  dashboard email notification push mobile android ios safari chrome timeout slow error crash fail missing wrong
  duplicate stuck pending delayed broken blank empty outdated currency rate price cart basket coupon discount stock
  warehouse shipping label tracking address customer account password reset profile avatar settings admin api
  webhook queue kafka database replica backup restore deploy release rollback feature flag config secret certificate`
  .split(/\s+/)
  .filter(Boolean);

function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Synthetic {
  records(count: number, now: number): Generator<MemoryRecord>;
  /** A query like a new incident: an alert on a workload (often one with a past), or a ticket. */
  query(): MemoryQuery;
}

export function synthetic(seed = 7): Synthetic {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const suffix = () => Array.from({ length: 5 }, () => pick([...'bcdfghjklmnpqrstvwxz2456789'])).join('');
  const workloads: Workload[] = Array.from({ length: 2_000 }, (_, i) => ({
    namespace: `team-${String(i % 200).padStart(3, '0')}`,
    name: `svc-${String(i).padStart(4, '0')}`,
    kind: i % 7 === 0 ? 'statefulset' : 'deployment',
    container: i % 3 === 0 ? 'app' : `svc-${String(i).padStart(4, '0')}`,
    cluster: CLUSTERS[i % 3]!,
    http: i % 2 === 0,
    consumer: i % 5 === 0,
    db: i % 50 === 0,
  }));
  let n = 0;
  const id = () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`;

  function alert(): Omit<MemoryQuery, 'source'> & { source: string } {
    const w = pick(workloads);
    const kinds = ALERT_KINDS.filter((k) => !k.nodeLevel && k.appliesTo(w));
    const kind = pick(kinds.length ? kinds : ALERT_KINDS);
    const vary = {
      pod: `${w.name}-7d9f8b6c4-${suffix()}`,
      node: `ip-${suffix()}`,
      instance: `10.0.${Math.floor(random() * 255)}.1:8080`,
    };
    const labels = { alertname: kind.name, cluster: w.cluster, ...kind.labels(kind.nodeLevel ? null : w, vary) };
    const title = `${kind.name}: ${kind.summary(kind.nodeLevel ? null : w, labels)}`;
    return { source: 'alertmanager', fingerprint: suffix() + suffix(), alertName: kind.name, labels, title };
  }

  function ticket(): MemoryQuery {
    const title = Array.from({ length: 6 }, () => pick(WORDS)).join(' ');
    const repo = `acme/repo-${Math.floor(random() * 40)}`;
    return {
      source: 'github',
      fingerprint: `${repo}#${Math.floor(random() * 1e6)}`,
      labels: { repository: repo },
      title,
    };
  }

  return {
    *records(count, now) {
      for (let i = 0; i < count; i++) {
        const q = random() < 0.1 ? ticket() : alert();
        yield {
          investigationId: id(),
          ...q,
          rootCause:
            `${pick(WORDS)} ${pick(WORDS)}: ${'the root cause as the RCA states it, in a sentence or two of plain text. '.repeat(5)}`.trim(),
          rootCauseBy: 'rca',
          verdict: pick([null, null, 'correct', 'partly', 'wrong'] as const),
          at: new Date(now - Math.floor(random() * 360 * DAY)).toISOString(),
        };
      }
    },
    query: () => (random() < 0.1 ? ticket() : alert()),
  };
}
