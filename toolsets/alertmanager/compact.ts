/** Alertmanager's answers trimmed to what an engineer reads: the model's context is not spent on receivers' plumbing. */

interface AmMatcher {
  name?: string;
  value?: string;
  isRegex?: boolean;
  isEqual?: boolean;
}

interface AmAlert {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  startsAt?: string;
  endsAt?: string;
  generatorURL?: string;
  fingerprint?: string;
  status?: { state?: string; silencedBy?: string[]; inhibitedBy?: string[] };
}

interface AmSilence {
  id?: string;
  status?: { state?: string };
  matchers?: AmMatcher[];
  startsAt?: string;
  endsAt?: string;
  createdBy?: string;
  comment?: string;
}

/** Annotations worth the tokens; others (dashboards, long templates) are left out. */
const ANNOTATIONS = ['summary', 'description', 'message', 'runbook_url'];
const MAX_ANNOTATION_CHARS = 500;

export interface CompactAlert {
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  state: string;
  startsAt?: string;
  silencedBy?: string[];
  inhibitedBy?: string[];
  fingerprint?: string;
  generatorURL?: string;
}

export function compactAlert(a: AmAlert): CompactAlert {
  const annotations = Object.fromEntries(
    ANNOTATIONS.filter((k) => typeof a.annotations?.[k] === 'string').map((k) => [
      k,
      clip(a.annotations![k]!, MAX_ANNOTATION_CHARS),
    ]),
  );
  const out: CompactAlert = { labels: a.labels ?? {}, state: a.status?.state ?? 'unknown' };
  if (Object.keys(annotations).length) out.annotations = annotations;
  if (a.startsAt) out.startsAt = a.startsAt;
  if (a.status?.silencedBy?.length) out.silencedBy = a.status.silencedBy;
  if (a.status?.inhibitedBy?.length) out.inhibitedBy = a.status.inhibitedBy;
  if (a.fingerprint) out.fingerprint = a.fingerprint;
  if (a.generatorURL) out.generatorURL = a.generatorURL;
  return out;
}

const OPS: Record<string, string> = { 'true/false': '=', 'true/true': '=~', 'false/false': '!=', 'false/true': '!~' };

/** `name="value"`, `name=~"regex"`, `name!="value"`, `name!~"regex"`: the syntax the tools take. */
export function matcherText(m: AmMatcher): string {
  const op = OPS[`${m.isEqual !== false}/${m.isRegex === true}`]!;
  return `${m.name ?? ''}${op}${JSON.stringify(m.value ?? '')}`;
}

export interface CompactSilence {
  id: string;
  state: string;
  matchers: string[];
  startsAt?: string;
  endsAt?: string;
  createdBy?: string;
  comment?: string;
}

export function compactSilence(s: AmSilence): CompactSilence {
  return {
    id: s.id ?? '',
    state: s.status?.state ?? 'unknown',
    matchers: (s.matchers ?? []).map(matcherText),
    ...(s.startsAt ? { startsAt: s.startsAt } : {}),
    ...(s.endsAt ? { endsAt: s.endsAt } : {}),
    ...(s.createdBy ? { createdBy: s.createdBy } : {}),
    ...(s.comment ? { comment: clip(s.comment, MAX_ANNOTATION_CHARS) } : {}),
  };
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
