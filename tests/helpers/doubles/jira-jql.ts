/**
 * The part of JQL the double understands: AND / OR / NOT with parentheses over
 * project, key (issuekey), labels, status, priority, issuetype (type), component with = != IN, NOT IN
 * (labels also IS [NOT] EMPTY), summary / description / text with ~ and !~, created / updated with
 * = != > >= < <= against "yyyy-MM-dd HH:mm", "yyyy/MM/dd HH:mm", the same without time, a period
 * ("-5m", "-2h", "-1d", "-1w") or now(); then ORDER BY updated | created | key [ASC|DESC], ...
 * Dates are read in UTC (the double's users' time zone). Anything else is refused with a 400 like Jira's.
 */
import type { JiraIssue } from './jira-state.js';

export class JqlError extends Error {}

export interface Jql {
  pred: (i: JiraIssue) => boolean;
  order: Array<{ field: 'updated' | 'created' | 'key'; dir: 1 | -1 }>;
  /** Whether there is a search restriction (Cloud refuses unbounded queries on /search/jql). */
  bounded: boolean;
}

type Pred = (i: JiraIssue) => boolean;

const TOKEN =
  /\s*(?:(\(|\)|,)|(!=|>=|<=|!~|=|>|<|~)|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^\s(),=!<>~"']+(?:\(\))?))/y;

function tokenize(jql: string): Array<{ t: 'punct' | 'op' | 'str' | 'word'; v: string }> {
  const out: Array<{ t: 'punct' | 'op' | 'str' | 'word'; v: string }> = [];
  TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while (TOKEN.lastIndex < jql.length && (m = TOKEN.exec(jql))) {
    if (m[1]) out.push({ t: 'punct', v: m[1] });
    else if (m[2]) out.push({ t: 'op', v: m[2] });
    else if (m[3] !== undefined || m[4] !== undefined)
      out.push({ t: 'str', v: (m[3] ?? m[4] ?? '').replace(/\\(.)/g, '$1') });
    else if (m[5]) out.push({ t: 'word', v: m[5] });
  }
  if (jql.slice(TOKEN.lastIndex).trim())
    throw new JqlError(`Error in the JQL Query: cannot read '${jql.slice(TOKEN.lastIndex)}'.`);
  return out;
}

const PERIOD = /^([-+]?)(\d+)([mhdw])$/;
const UNIT = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

export function jqlDate(v: string, field: string, now: number): number {
  if (v.toLowerCase() === 'now()') return now;
  const p = PERIOD.exec(v);
  if (p) return now + (p[1] === '-' ? -1 : 1) * Number(p[2]) * UNIT[p[3] as keyof typeof UNIT];
  const d = /^(\d{4})[-/](\d{2})[-/](\d{2})(?: (\d{2}):(\d{2}))?$/.exec(v);
  if (!d) {
    throw new JqlError(
      `Date value '${v}' for field '${field}' is invalid. Valid formats include: 'yyyy/MM/dd HH:mm', 'yyyy-MM-dd HH:mm', 'yyyy/MM/dd', 'yyyy-MM-dd', or a period format e.g. '-5d', '4w 2d'.`,
    );
  }
  return Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]), Number(d[4] ?? 0), Number(d[5] ?? 0));
}

const keyRank = (k: string): [string, number] => [k.split('-')[0] ?? '', Number(k.split('-')[1] ?? 0)];

export function compareKeys(a: string, b: string): number {
  const [pa, na] = keyRank(a);
  const [pb, nb] = keyRank(b);
  return pa.localeCompare(pb) || na - nb;
}

/** `projects` and `keys` are those that exist: Jira refuses a query naming one that does not. */
export function parseJql(jql: string, ctx: { now: number; projects: Set<string>; keys: Set<string> }): Jql {
  const toks = tokenize(jql);
  let pos = 0;
  const peek = (): string => toks[pos]?.v.toUpperCase() ?? '';
  const next = (): { t: string; v: string } => {
    const tok = toks[pos++];
    if (!tok) throw new JqlError('Error in the JQL Query: the query ended unexpectedly.');
    return tok;
  };
  const expect = (v: string): void => {
    if (next().v.toUpperCase() !== v) throw new JqlError(`Error in the JQL Query: expecting '${v}'.`);
  };
  const list = (): string[] => {
    expect('(');
    const vals = [next().v];
    while (peek() === ',') {
      pos++;
      vals.push(next().v);
    }
    expect(')');
    return vals;
  };

  const clause = (): Pred => {
    const field = next().v.toLowerCase();
    let op = peek();
    pos++;
    if (op === 'NOT' && peek() === 'IN') {
      pos++;
      op = 'NOT IN';
    }
    if (op === 'IS' && peek() === 'NOT') {
      pos++;
      op = 'IS NOT';
    }
    const values = op === 'IN' || op === 'NOT IN' ? list() : [next().v];
    return fieldPred(field, op, values, ctx);
  };
  const unary = (): Pred => {
    if (peek() === 'NOT') {
      pos++;
      const inner = unary();
      return (i) => !inner(i);
    }
    if (peek() === '(') {
      pos++;
      const inner = or();
      expect(')');
      return inner;
    }
    return clause();
  };
  const and = (): Pred => {
    const parts = [unary()];
    while (peek() === 'AND') {
      pos++;
      parts.push(unary());
    }
    return (i) => parts.every((p) => p(i));
  };
  const or = (): Pred => {
    const parts = [and()];
    while (peek() === 'OR') {
      pos++;
      parts.push(and());
    }
    return (i) => parts.some((p) => p(i));
  };

  const bounded = pos < toks.length && peek() !== 'ORDER';
  const pred = bounded ? or() : () => true;
  const order: Jql['order'] = [];
  if (peek() === 'ORDER') {
    pos++;
    expect('BY');
    do {
      if (peek() === ',') pos++;
      const f = next().v.toLowerCase();
      const field = f === 'issuekey' ? 'key' : f;
      if (field !== 'updated' && field !== 'created' && field !== 'key')
        throw new JqlError(`Not able to sort using field '${f}'.`);
      let dir: 1 | -1 | undefined;
      if (peek() === 'ASC') dir = 1;
      else if (peek() === 'DESC') dir = -1;
      if (dir !== undefined) pos++;
      order.push({ field, dir: dir ?? (field === 'key' ? 1 : -1) });
    } while (peek() === ',');
  }
  if (pos < toks.length) throw new JqlError(`Error in the JQL Query: unexpected '${toks[pos]?.v}'.`);
  return { pred, order, bounded };
}

const EQ_FIELDS: Record<string, (i: JiraIssue) => string[]> = {
  project: (i) => [i.project],
  key: (i) => [i.key, i.id],
  issuekey: (i) => [i.key, i.id],
  labels: (i) => i.labels,
  status: (i) => [i.status],
  priority: (i) => (i.priority ? [i.priority] : []),
  issuetype: (i) => [i.issuetype],
  type: (i) => [i.issuetype],
  component: (i) => i.components,
};
const TEXT_FIELDS: Record<string, (i: JiraIssue) => string> = {
  summary: (i) => i.summary,
  description: (i) => JSON.stringify(i.description ?? ''),
  text: (i) => `${i.summary} ${JSON.stringify(i.description ?? '')}`,
};

function fieldPred(
  field: string,
  op: string,
  values: string[],
  ctx: { now: number; projects: Set<string>; keys: Set<string> },
): Pred {
  const unsupported = (): never => {
    throw new JqlError(`The operator '${op.toLowerCase()}' is not supported by the '${field}' field.`);
  };
  const eq = EQ_FIELDS[field];
  if (eq) {
    if (field === 'project')
      for (const v of values)
        if (!ctx.projects.has(v.toUpperCase()))
          throw new JqlError(`The value '${v}' does not exist for the field 'project'.`);
    if (field === 'key' || field === 'issuekey')
      for (const v of values)
        if (!/^\d+$/.test(v) && !ctx.keys.has(v.toUpperCase()))
          throw new JqlError(`An issue with key '${v}' does not exist for field 'key'.`);
    const wanted = values.map((v) => v.toLowerCase());
    const has = (i: JiraIssue): boolean => eq(i).some((x) => wanted.includes(x.toLowerCase()));
    if (op === '=' || op === 'IN') return has;
    if (op === '!=' || op === 'NOT IN') return (i) => !has(i);
    if ((op === 'IS' || op === 'IS NOT') && /^(empty|null)$/i.test(values[0] ?? ''))
      return op === 'IS' ? (i) => eq(i).length === 0 : (i) => eq(i).length > 0;
    return unsupported();
  }
  const text = TEXT_FIELDS[field];
  if (text) {
    const needle = (values[0] ?? '').toLowerCase();
    if (op === '~') return (i) => text(i).toLowerCase().includes(needle);
    if (op === '!~') return (i) => !text(i).toLowerCase().includes(needle);
    return unsupported();
  }
  if (field === 'updated' || field === 'created') {
    const when = jqlDate(values[0] ?? '', field, ctx.now);
    const cmp: Record<string, (t: number) => boolean> = {
      '=': (t) => Math.floor(t / 60_000) === Math.floor(when / 60_000),
      '!=': (t) => Math.floor(t / 60_000) !== Math.floor(when / 60_000),
      '>': (t) => t > when,
      '>=': (t) => t >= when,
      '<': (t) => t < when,
      '<=': (t) => t <= when,
    };
    const c = cmp[op] ?? unsupported();
    return (i) => c(i[field]);
  }
  throw new JqlError(`Field '${field}' does not exist or you do not have permission to view it.`);
}
