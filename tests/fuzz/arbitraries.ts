import fc from 'fast-check';

/**
 * fast-check settings for every fuzz property: bounded runs. The seed is the run's one seed, set by
 * tests/setup/fast-check-seed.ts: fixed by default, FC_SEED=<n> replays the seed a failure printed,
 * FC_SEED=random explores. FC_SCALE=<n> multiplies the runs, for a longer hunt than CI's (raise
 * vitest's --testTimeout with it).
 */
export function fcParams(numRuns: number): fc.Parameters<unknown> {
  const scale = Number(process.env.FC_SCALE ?? 1);
  return { numRuns: Math.max(1, Math.round(numRuns * (scale > 0 ? scale : 1))) };
}

/** One unit of an odd string: any code point, a lone UTF-16 surrogate, or a character that means something somewhere. */
const unit = fc.oneof(
  { weight: 5, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '"',
      '\\',
      '/',
      '.',
      '..',
      '%',
      '%2e',
      '%2F',
      '\u0000',
      '\n',
      '\r\n',
      '\u2028',
      '{{',
      '}}',
      '{%',
      '&',
      '=',
      '?',
      '#',
      ' ',
      '-',
      '@',
      ':',
      '\ufeff',
      '\u{1f600}',
    ),
  },
);

/** Strings as hostile senders write them: lone surrogates, NULs, template and URL syntax, prototype names, long ones. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit, maxLength: 30 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '__proto__',
      'constructor',
      'toString',
      'hasOwnProperty',
      '..',
      '.',
      '%2e%2e',
      '\ud800',
      '\udfff',
      'x'.repeat(5000),
    ),
  },
);

/** Strings made of URL syntax: dot segments in every disguise (%2e, %252e, \\, /), queries and fragments. */
export const urlishString: fc.Arbitrary<string> = fc.string({
  unit: fc.constantFrom(
    '.',
    '.',
    '/',
    '\\',
    '%',
    '%2e',
    '%2E',
    '%25',
    '%2f',
    '2',
    'e',
    'a',
    '?',
    '#',
    '&',
    '=',
    ' ',
    '+',
  ),
  maxLength: 8,
});

/** Any string a tool parameter may hold: odd, plain Unicode, or URL-ish. */
export const paramString: fc.Arbitrary<string> = fc.oneof(
  oddString,
  fc.string({ unit: 'binary', maxLength: 20 }),
  urlishString,
);

/** A label/annotation map with odd keys and values (own "__proto__" keys included). */
export const oddMap: fc.Arbitrary<Record<string, string>> = fc
  .array(fc.tuple(oddString, oddString), { maxLength: 6 })
  .map((pairs) => Object.fromEntries(pairs));

/** Huge and odd numbers cannot be written by JSON.stringify; such a marker string becomes the raw token in the text. */
export const RAW = '\u0000raw:';
const rawNumbers = fc.constantFrom('1e400', '-1e400', '123456789012345678901234567890', '-0', '1.0', '0.1e-400', '4e0');

/** Deeply nested arrays/objects, built without recursion so the test process does not overflow either. */
const deep = fc.tuple(fc.integer({ min: 50, max: 3000 }), fc.boolean()).map(([depth, arrays]) => {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
});

/** Any JSON value, with odd strings, odd keys, huge numbers and deep nesting. */
export const anyJson: fc.Arbitrary<unknown> = fc
  .letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant(null),
      fc.boolean(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      oddString,
      rawNumbers.map((n) => RAW + n),
      fc.array(tie('value'), { maxLength: 4 }),
      fc.array(fc.tuple(oddString, tie('value')), { maxLength: 4 }).map((pairs) => Object.fromEntries(pairs)),
    ),
  }))
  .value.chain((v) => fc.oneof({ weight: 9, arbitrary: fc.constant(v) }, { weight: 1, arbitrary: deep }));

/** JSON text for a value, with RAW markers turned into the raw number tokens they stand for. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0000raw:([^"]*)"/g, '$1');
}

export type Path = Array<string | number>;

/**
 * The path of the pick-th node (modulo their number) of a value, counting parents before children.
 * Iterative, with a parent link per node rather than a path per node: a replaced value may be
 * nested thousands deep, and paths copied per node would take memory quadratic in the depth.
 */
function pickPath(root: unknown, pick: number): Path {
  const parent: number[] = [];
  const key: Array<string | number> = [];
  const stack: Array<[unknown, number, string | number]> = [[root, -1, '']];
  while (stack.length) {
    const [value, up, k] = stack.pop()!;
    const index = parent.length;
    parent.push(up);
    key.push(k);
    const children = childrenOf(value, index);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  const path: Path = [];
  for (let i = pick % parent.length; i > 0; i = parent[i]!) path.push(key[i]!);
  return path.reverse();
}

function getAt(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)[key], root);
}

const mutation = fc.oneof(
  fc.record({ op: fc.constant('drop' as const) }),
  fc.record({ op: fc.constant('replace' as const), value: anyJson }),
  fc.record({ op: fc.constant('retype' as const) }),
  fc.record({
    op: fc.constant('add-key' as const),
    key: fc.oneof(fc.constant('__proto__'), fc.constant('constructor'), oddString),
    value: anyJson,
  }),
);

/**
 * A real payload mutated 1-4 times at random places: a field dropped, replaced by any JSON value,
 * retyped (string ↔ number, object ↔ array), or an odd key (e.g. "__proto__") added to an object.
 */
export function mutationsOf(fixtures: unknown[]): fc.Arbitrary<unknown> {
  return fc
    .tuple(fc.constantFrom(...fixtures), fc.array(fc.tuple(fc.nat(), mutation), { minLength: 1, maxLength: 4 }))
    .map(([fixture, steps]) => {
      const root = { doc: structuredClone(fixture) };
      // fast-check may hand one value instance to two steps: inserting it twice (once inside
      // itself) would make a cycle no JSON can hold, so a second insertion is skipped.
      const inserted = new Set<unknown>();
      const reused = (v: unknown) => {
        if (v === null || typeof v !== 'object') return false;
        if (inserted.has(v)) return true;
        inserted.add(v);
        return false;
      };
      for (const [pick, m] of steps) {
        const path = ['doc', ...pickPath(root.doc, pick)];
        const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown>;
        const key = path.at(-1)!;
        const current = parent[key];
        if (m.op === 'drop') {
          if (path.length === 1) parent[key] = {};
          else if (Array.isArray(parent)) parent.splice(key as number, 1);
          else delete parent[key];
        } else if (m.op === 'replace') {
          if (reused(m.value)) continue;
          parent[key] = m.value;
        } else if (m.op === 'retype') {
          parent[key] = retyped(current);
        } else if (current && typeof current === 'object' && !Array.isArray(current)) {
          // defineProperty: a "__proto__" key stays a key, as JSON.parse would make it.
          if (reused(m.value)) continue;
          Object.defineProperty(current, m.key, {
            value: m.value,
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
      }
      return root.doc;
    });
}

/** Numbers a count or an id may be: small, negative, past 32 bits, the largest safe integer. */
const edgeNumbers = fc.constantFrom(0, -1, 1, 101, 2 ** 31, 2 ** 53 - 1, 1e21, 0.5);

/**
 * A real payload with 1-3 of the fields its source reads (the paths given, where the payload has
 * them) dropped, retyped or replaced by an odd string, an edge number, any JSON value or one of
 * `extra`. Uniformly picked paths mostly land on fields nobody reads; these do not.
 */
export function focusedMutationsOf(
  fixtures: unknown[],
  hotPaths: Path[],
  extra?: fc.Arbitrary<unknown>,
): fc.Arbitrary<unknown> {
  const value = fc.oneof(
    { weight: 4, arbitrary: oddString },
    { weight: 2, arbitrary: edgeNumbers },
    { weight: 3, arbitrary: anyJson },
    ...(extra ? [{ weight: 2, arbitrary: extra }] : []),
  );
  const step = fc.tuple(
    fc.nat(),
    fc.oneof(
      { weight: 1, arbitrary: fc.record({ op: fc.constant('drop' as const) }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('retype' as const) }) },
      { weight: 5, arbitrary: fc.record({ op: fc.constant('replace' as const), value }) },
    ),
  );
  return fc
    .tuple(fc.constantFrom(...fixtures), fc.array(step, { minLength: 1, maxLength: 3 }))
    .map(([fixture, steps]) => {
      const doc = structuredClone(fixture);
      for (const [pick, m] of steps) {
        const present = hotPaths.filter((p) => {
          try {
            const parent = getAt(doc, p.slice(0, -1));
            return parent !== null && typeof parent === 'object';
          } catch {
            return false;
          }
        });
        if (present.length === 0) break;
        const path = present[pick % present.length]!;
        const parent = getAt(doc, path.slice(0, -1)) as Record<string | number, unknown>;
        const key = path.at(-1)!;
        const current = parent[key];
        if (m.op === 'drop') {
          if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
          else delete parent[key];
        } else if (m.op === 'retype') {
          parent[key] = retyped(current);
        } else {
          parent[key] = m.value;
        }
      }
      return doc;
    });
}

/** A JSON value's children, each with its parent's index and its key. */
function childrenOf(value: unknown, index: number): Array<[unknown, number, string | number]> {
  if (Array.isArray(value)) return value.map((v: unknown, i): [unknown, number, number] => [v, index, i]);
  if (value && typeof value === 'object')
    return Object.entries(value).map(([name, v]): [unknown, number, string] => [v, index, name]);
  return [];
}

/** The value as another JSON type: text and numbers swap, arrays and objects swap, anything else becomes text. */
function retyped(current: unknown): unknown {
  if (typeof current === 'string') return Number(current) || 0;
  if (typeof current === 'number') return String(current);
  if (Array.isArray(current)) return Object.fromEntries(current.map((v: unknown, i) => [String(i), v]));
  return current && typeof current === 'object' ? Object.values(current) : 'retyped';
}
