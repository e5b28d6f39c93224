/**
 * The part of LogQL the Loki double understands: a stream selector with =, !=, =~, !~ matchers and
 * line filters (|=, !=, |~, !~). Anything else is refused the way Loki refuses a query it cannot
 * parse: "parse error at line 1, col N: syntax error: …" (HTTP 400).
 */
export interface LogQuery {
  matchers: { name: string; op: '=' | '!=' | '=~' | '!~'; value: string }[];
  filters: { op: '|=' | '!=' | '|~' | '!~'; value: string }[];
}

export class LogQlError extends Error {}

const MATCHER = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*"|`[^`]*`)\s*/;
const FILTER = /^\s*(\|=|!=|\|~|!~)\s*("(?:[^"\\]|\\.)*"|`[^`]*`)\s*/;

export function parseLogQuery(query: string): LogQuery {
  const fail = (rest: string, what: string): never => {
    const col = query.length - rest.length + 1;
    throw new LogQlError(`parse error at line 1, col ${col}: syntax error: unexpected ${what}`);
  };
  let rest = query.trimStart();
  if (!rest.startsWith('{')) fail(rest, rest ? 'IDENTIFIER' : '$end');
  rest = rest.slice(1);
  const matchers: LogQuery['matchers'] = [];
  for (;;) {
    const m = MATCHER.exec(rest);
    if (!m) fail(rest, rest.trim() ? `"${rest.trim()[0]}"` : '$end, expecting IDENTIFIER');
    matchers.push({ name: m![1]!, op: m![2] as LogQuery['matchers'][number]['op'], value: unquote(m![3]!) });
    rest = rest.slice(m![0].length);
    if (rest.startsWith(',')) rest = rest.slice(1);
    else if (rest.startsWith('}')) break;
    else fail(rest, rest ? `"${rest[0]}", expecting , or }` : '$end');
  }
  rest = rest.slice(1);
  const filters: LogQuery['filters'] = [];
  while (rest.trim()) {
    const f = FILTER.exec(rest);
    if (!f) fail(rest, `"${rest.trim().split(/\s/)[0]}"`);
    filters.push({ op: f![1] as LogQuery['filters'][number]['op'], value: unquote(f![2]!) });
    rest = rest.slice(f![0].length);
  }
  const nonEmpty = (x: LogQuery['matchers'][number]) =>
    (x.op === '=' && x.value !== '') || (x.op === '=~' && !new RegExp(`^(?:${x.value})$`).test(''));
  if (!matchers.some(nonEmpty))
    throw new LogQlError(
      'queries require at least one regexp or equality matcher that does not have an empty-compatible value. ' +
        'For instance, app=~".*" does not meet this requirement, but app=~".+" will',
    );
  return { matchers, filters };
}

export function matchesLabels(q: Pick<LogQuery, 'matchers'>, labels: Record<string, string>): boolean {
  return q.matchers.every(({ name, op, value }) => {
    const v = labels[name] ?? '';
    if (op === '=') return v === value;
    if (op === '!=') return v !== value;
    const re = new RegExp(`^(?:${value})$`);
    return op === '=~' ? re.test(v) : !re.test(v);
  });
}

export function matchesLine(q: LogQuery, line: string): boolean {
  return q.filters.every(({ op, value }) => {
    if (op === '|=') return line.includes(value);
    if (op === '!=') return !line.includes(value);
    const hit = new RegExp(value).test(line);
    return op === '|~' ? hit : !hit;
  });
}

function unquote(s: string): string {
  return s.startsWith('`') ? s.slice(1, -1) : (JSON.parse(s) as string);
}
