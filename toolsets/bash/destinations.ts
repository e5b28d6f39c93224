/**
 * Where the bash toolset's programs may connect: host:port pairs, matched as written. One reading
 * serves the policy (curl-rules.ts, a first filter) and the egress proxy (egress-proxy.ts, the OS
 * boundary), so the two never disagree about what an entry allows.
 */
export interface Destination {
  /** Lower-case host name, dotted IPv4, or a bracketed IPv6 literal ("[::1]"), exactly as configured. */
  host: string;
  port: number;
}

const NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;
const IPV6 = /^\[[0-9a-f:.]+\]$/;

/** host, host:port or [v6]:port → its parts; null when it is not one of those forms. */
export function parseAuthority(text: string): { host: string; port?: number } | null {
  const m = /^(\[[^\]]*\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(text.toLowerCase());
  if (!m) return null;
  const host = m[1]!;
  if (!NAME.test(host) && !IPV6.test(host)) return null;
  if (m[2] === undefined) return { host };
  const port = Number(m[2]);
  return port >= 1 && port <= 65_535 ? { host, port } : null;
}

/**
 * toolsets.bash.curlHosts → destinations. "host:port" allows that port; a bare "host" allows the
 * default ports of http and https (80 and 443). Invalid entries are returned apart, to be reported.
 */
export function parseCurlHosts(entries: string[]): { destinations: Destination[]; invalid: string[] } {
  const destinations: Destination[] = [];
  const invalid: string[] = [];
  for (const entry of entries) {
    const a = parseAuthority(entry.trim());
    if (!a) invalid.push(entry);
    else if (a.port === undefined) destinations.push({ host: a.host, port: 80 }, { host: a.host, port: 443 });
    else destinations.push({ host: a.host, port: a.port });
  }
  return { destinations, invalid };
}

/** Whether host:port is one of the destinations: the name as asked for, never a resolved address. */
export function isAllowed(destinations: Destination[], host: string, port: number): boolean {
  const h = host.toLowerCase();
  return destinations.some((d) => d.host === h && d.port === port);
}

/** "host:port" as the configuration would spell it (for the fix in a refusal). */
export function spell(host: string, port: number): string {
  return `${host}:${port}`;
}
