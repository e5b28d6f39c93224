import { ConfigError } from '../errors.js';
import { matches, parseMatcher, type LabelMatcher } from '../intake-policy/label-matcher.js';
import type { Issue } from '../issue.js';
import type { RoutingConfig } from '../config/routing-schema.js';

export { RoutingConfigSchema, type RoutingConfig } from '../config/routing-schema.js';

/** A destination named by a route: its registration name and optional target (a Slack channel). */
export interface DestinationRef {
  name: string;
  target: string | null;
  /** As written: "slack:#alerts"; the job and the API's writeBacks know it by this. */
  ref: string;
}

interface Route {
  sources: string[] | null;
  matchers: LabelMatcher[];
  destinations: DestinationRef[];
  continue: boolean;
}

/**
 * A route tried before `destinations.routes`, named by where it was configured (a health check's own
 * `destinations`: source `check`, matcher `check="<name>"`).
 */
export interface FirstRoute {
  where: string;
  source: string;
  matchers: string[];
  destinations: string[];
}

/** What routing needs to know of each registered destination. */
export interface RoutableDestination {
  name: string;
  on: boolean;
  targetError?(target: string): string | null;
}

export interface Router {
  /** The destinations an issue goes to, each once, in route order. */
  route(issue: Pick<Issue, 'source' | 'labels' | 'locator'>): DestinationRef[];
  /** Routes naming destinations that are off (said at start-up); they are dropped from routing. */
  warnings: string[];
}

/**
 * Compiles `destinations.routes` and `destinations.default` once, at start-up: a bad matcher,
 * an unknown destination or a bad target is a ConfigError naming the key.
 */
export function compileRouter(
  config: RoutingConfig,
  known: readonly RoutableDestination[],
  first: readonly FirstRoute[] = [],
): Router {
  const warnings: string[] = [];
  const refs = (list: readonly string[], where: string) =>
    list.flatMap((text, j) => {
      const ref = parseRef(text, `${where}[${j}]`, known);
      if (ref) return [ref];
      warnings.push(`${where}[${j}]: destination ${text} is off; that route does not send to it`);
      return [];
    });
  const own: Route[] = first.map((r) => ({
    sources: [r.source],
    matchers: r.matchers.map((m, j) => parseMatcher(m, `${r.where}.matchers[${j}]`)),
    destinations: refs(r.destinations, `${r.where}.destinations`),
    continue: false,
  }));
  const routes: Route[] = config.routes.map((r, i) => ({
    sources: r.source === undefined ? null : [r.source].flat(),
    matchers: r.matchers.map((m, j) => parseMatcher(m, `destinations.routes[${i}].matchers[${j}]`)),
    destinations: refs(r.destinations, `destinations.routes[${i}].destinations`),
    continue: r.continue,
  }));
  routes.unshift(...own);
  const fallback =
    config.default === undefined
      ? known.filter((d) => d.on).map((d) => ({ name: d.name, target: null, ref: d.name }))
      : refs(config.default, 'destinations.default');
  return { warnings, route: (issue) => routeIssue(routes, fallback, issue) };
}

function routeIssue(
  routes: readonly Route[],
  fallback: DestinationRef[],
  issue: Pick<Issue, 'source' | 'labels' | 'locator'>,
): DestinationRef[] {
  const out = new Map<string, DestinationRef>();
  let matched = false;
  for (const r of routes) {
    const sourceOk = r.sources ? r.sources.includes(issue.source) : !issue.locator;
    if (!sourceOk || !r.matchers.every((m) => matches(m, issue.labels))) continue;
    matched = true;
    for (const d of r.destinations) out.set(d.ref, d);
    if (!r.continue) break;
  }
  // The default route takes what no route did, and only issues with no ticket of their own.
  if (!matched && !issue.locator) for (const d of fallback) out.set(d.ref, d);
  return [...out.values()];
}

function parseRef(text: string, where: string, known: readonly RoutableDestination[]): DestinationRef | null {
  const colon = text.indexOf(':');
  const name = colon < 0 ? text : text.slice(0, colon);
  const target = colon < 0 ? null : text.slice(colon + 1);
  const dest = known.find((d) => d.name === name);
  if (!dest) {
    throw new ConfigError(
      `${where}: no destination "${name}" (known: ${known.map((d) => d.name).join(', ')}); write name or name:target`,
    );
  }
  if (target !== null) {
    let error = dest.targetError ? dest.targetError(target) : `${name} takes no target`;
    if (target === '') error = 'empty target';
    if (error) throw new ConfigError(`${where}: "${text}": ${error}`);
  }
  return dest.on ? { name, target, ref: text } : null;
}
