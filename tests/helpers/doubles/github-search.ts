/**
 * GitHub issue search over the double's state. Supported in `q`: repo:OWNER/NAME (several = any),
 * is:issue / type:issue, is:pr / type:pr (matches nothing: the double has no pull requests),
 * is:open / is:closed / state:X, label:X (several = all), -label:X, author:X,
 * updated: / created: with >=, >, <=, <, = or A..B (dates or ISO times), and free words (title or body).
 */
import type { GhIssue, GhRepo } from './github-state.js';

export interface SearchHit {
  repo: GhRepo;
  issue: GhIssue;
}

type Pred = (h: SearchHit) => boolean;

function tokenize(q: string): string[] {
  return q.match(/(?:[^\s"]+|"[^"]*")+/g) ?? [];
}

const unquote = (s: string): string => s.replace(/"/g, '');

function datePred(field: 'updated_at' | 'created_at', expr: string): Pred | string {
  const range = expr.split('..');
  const ms = (s: string): number => Date.parse(s);
  if (range.length === 2) {
    const [a = '', b = ''] = range;
    const lo = a === '*' ? -Infinity : ms(a);
    const hi = b === '*' ? Infinity : ms(b);
    if (Number.isNaN(lo) || Number.isNaN(hi)) return `bad date range ${expr}`;
    return (h) => ms(h.issue[field]) >= lo && ms(h.issue[field]) <= hi;
  }
  const m = /^(>=|<=|>|<|=)?(.+)$/.exec(expr);
  const when = ms(m?.[2] ?? '');
  if (Number.isNaN(when)) return `bad date ${expr}`;
  const cmp = {
    '>=': (t: number) => t >= when,
    '>': (t: number) => t > when,
    '<=': (t: number) => t <= when,
    '<': (t: number) => t < when,
    '=': (t: number) => t === when,
  }[(m?.[1] ?? '=') as '>=' | '>' | '<=' | '<' | '='];
  return (h) => cmp(ms(h.issue[field]));
}

/** A predicate for `q`, or an error message (GitHub answers 422 to a query it cannot parse). */
export function parseSearch(q: string): { repos: string[]; pred: Pred } | { error: string } {
  const preds: Pred[] = [];
  const repos: string[] = [];
  for (const tok of tokenize(q)) {
    const neg = tok.startsWith('-') && tok.includes(':');
    const [rawKey = '', ...rest] = (neg ? tok.slice(1) : tok).split(':');
    const key = rawKey.toLowerCase();
    const value = unquote(rest.join(':'));
    let p: Pred | string;
    if (rest.length === 0) {
      const word = unquote(tok).toLowerCase();
      p = (h) => `${h.issue.title}\n${h.issue.body ?? ''}`.toLowerCase().includes(word);
    } else if (key === 'repo') {
      repos.push(value.toLowerCase());
      continue;
    } else if ((key === 'is' || key === 'type') && ['issue', 'pr', 'pull-request'].includes(value)) {
      p = () => value === 'issue';
    } else if ((key === 'is' || key === 'state') && ['open', 'closed'].includes(value)) {
      p = (h) => h.issue.state === value;
    } else if (key === 'label') {
      p = (h) => h.issue.labels.some((l) => l.toLowerCase() === value.toLowerCase());
    } else if (key === 'author') {
      p = (h) => h.issue.user.login.toLowerCase() === value.toLowerCase();
    } else if (key === 'updated' || key === 'created') {
      p = datePred(key === 'updated' ? 'updated_at' : 'created_at', value);
    } else {
      return { error: `the double does not support the qualifier ${key}:` };
    }
    if (typeof p === 'string') return { error: p };
    const pred = p;
    preds.push(neg ? (h) => !pred(h) : pred);
  }
  return { repos, pred: (h) => preds.every((p) => p(h)) };
}

const SORT_FIELDS = { created: 'created_at', updated: 'updated_at' } as const;

/** GitHub's `sort`/`order`; without `sort` ("best match") the double lists the most recently updated first. */
export function sortHits(hits: SearchHit[], sort: string | undefined, order: string | undefined): SearchHit[] {
  const dir = order === 'asc' ? 1 : -1;
  if (sort === 'comments') return hits.sort((a, b) => dir * (a.issue.comments.length - b.issue.comments.length));
  const field = SORT_FIELDS[sort as keyof typeof SORT_FIELDS] ?? 'updated_at';
  const d = sort ? dir : -1;
  return hits.sort((a, b) => d * a.issue[field].localeCompare(b.issue[field]) || b.issue.number - a.issue.number);
}
