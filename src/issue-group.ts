import type { Issue, Severity } from './issue.js';

const SEVERITY_RANK: ReadonlyMap<Severity, number> = new Map([
  ['critical', 0],
  ['high', 1],
  ['warning', 2],
  ['unknown', 3],
  ['info', 4],
]);

/**
 * One Issue for a group's investigation: labels and annotations every member shares are listed
 * once, what differs is listed per member; the most severe member's severity; open while any is.
 * `resolved` holds the fingerprints of members that have resolved since they joined.
 */
export function composeGroupIssue(members: readonly Issue[], resolved: ReadonlySet<string> = new Set()): Issue {
  const first = members[0];
  if (!first) throw new Error('a group has at least one member');
  const labels = shared(members.map((m) => m.labels));
  const annotations = shared(members.map((m) => m.annotations));
  const statusOf = (m: Issue) => (m.status === 'resolved' || resolved.has(m.fingerprint) ? 'resolved' : 'open');
  const severity = [...members].sort((a, b) => rank(a.severity) - rank(b.severity))[0]!.severity;
  const descriptions = new Set(members.map((m) => m.description));
  return {
    ...first,
    title: first.group?.title ?? first.title,
    description: descriptions.size === 1 ? first.description : '',
    severity,
    status: members.some((m) => statusOf(m) === 'open') ? 'open' : 'resolved',
    labels,
    annotations,
    startedAt: members.map((m) => m.startedAt).sort()[0] ?? first.startedAt,
    ...trustedHostsOf(members),
    alerts: members.map((m) => ({
      identity: m.identity,
      fingerprint: m.fingerprint,
      title: m.title,
      status: statusOf(m),
      severity: m.severity,
      startedAt: m.startedAt,
      url: m.url,
      labels: differing(m.labels, labels),
      annotations: differing(m.annotations, annotations),
    })),
  };
}

function trustedHostsOf(members: readonly Issue[]): Pick<Issue, 'trustedHosts'> {
  const hosts = [...new Set(members.flatMap((m) => m.trustedHosts ?? []))];
  return hosts.length ? { trustedHosts: hosts } : {};
}

function rank(s: Severity): number {
  return SEVERITY_RANK.get(s) ?? 3;
}

/** The entries every map has with the same value (own keys only; "__proto__" is data). */
function shared(maps: ReadonlyArray<Record<string, string>>): Record<string, string> {
  const [head, ...rest] = maps;
  if (!head) return {};
  const entries = Object.entries(head).filter(([k, v]) => rest.every((m) => Object.hasOwn(m, k) && m[k] === v));
  return Object.fromEntries(entries);
}

function differing(map: Record<string, string>, common: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(map).filter(([k]) => !Object.hasOwn(common, k)));
}
