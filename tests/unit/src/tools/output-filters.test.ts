import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  applyFilters,
  FILTER_KEYS,
  FilterSchema,
  hasFilters,
  splitFilters,
} from '../../../../src/tools/output-filters.js';

const text = 'alpha 1\nBeta 2\ngamma 3\nbeta 4\n';

describe('output filters offered to the model', () => {
  it('are grep, head, tail and fields, each described in the JSON Schema the model reads', () => {
    expect(FILTER_KEYS).toEqual(['output_grep', 'output_head', 'output_tail', 'output_fields']);
    const schema = z.toJSONSchema(FilterSchema) as { properties: Record<string, { description?: string }> };
    for (const key of FILTER_KEYS) expect(schema.properties[key]?.description, key).toMatch(/\w{4,}/);
  });

  it('accept values inside their bounds and name the filter that is out of them', () => {
    const ok = {
      output_grep: 'x'.repeat(500),
      output_head: 100_000,
      output_tail: 1,
      output_fields: Array.from({ length: 50 }, () => 'f'.repeat(200)),
    };
    expect(FilterSchema.safeParse(ok).success).toBe(true);
    expect(FilterSchema.safeParse({ output_head: 1, output_tail: 100_000, output_fields: ['a'] }).success).toBe(true);
    for (const [bad, field] of [
      [{ output_grep: '' }, 'output_grep'],
      [{ output_grep: 'x'.repeat(501) }, 'output_grep'],
      [{ output_head: 0 }, 'output_head'],
      [{ output_head: 100_001 }, 'output_head'],
      [{ output_head: 1.5 }, 'output_head'],
      [{ output_tail: 0 }, 'output_tail'],
      [{ output_tail: 100_001 }, 'output_tail'],
      [{ output_fields: [] }, 'output_fields'],
      [{ output_fields: Array.from({ length: 51 }, () => 'f') }, 'output_fields'],
      [{ output_fields: [''] }, 'output_fields'],
      [{ output_fields: ['f'.repeat(201)] }, 'output_fields'],
      [{ output_sort: true }, ''],
    ] as const) {
      const r = FilterSchema.safeParse(bad);
      expect(r.success, JSON.stringify(bad)).toBe(false);
      expect(r.error!.issues[0]!.path[0] ?? '', JSON.stringify(bad)).toBe(field);
    }
  });
});

describe('splitFilters', () => {
  it("takes the filters out of the arguments and leaves the tool's own", () => {
    const r = splitFilters({ q: 'x', output_head: 5, output_grep: 'err' }, { q: {} });
    expect('args' in r && { ...r.args }).toEqual({ q: 'x' });
    expect('filters' in r && r.filters).toEqual({ output_head: 5, output_grep: 'err' });
  });

  it('leaves a parameter the tool declares itself to the tool, and the rest untouched', () => {
    const r = splitFilters({ output_grep: 'x', output_tail: 2 }, { output_grep: {} });
    expect('args' in r && { ...r.args }).toEqual({ output_grep: 'x' });
    expect('filters' in r && r.filters).toEqual({ output_tail: 2 });
    const none = splitFilters({ q: 1 }, {});
    expect(none).toEqual({ args: expect.anything(), filters: {} });
  });

  it("reads only own keys: a prototype's output_head is not a filter", () => {
    const r = splitFilters(Object.create({ output_head: 0 }) as Record<string, unknown>, {});
    expect('filters' in r && r.filters).toEqual({});
  });

  it('says which filter is invalid', () => {
    expect(splitFilters({ output_head: 0 }, {})).toEqual({
      error: expect.stringMatching(/^invalid arguments: output_head: /),
    });
  });
});

describe('hasFilters', () => {
  it('is true when any one filter is set', () => {
    expect(hasFilters({})).toBe(false);
    expect(hasFilters({ output_grep: undefined })).toBe(false);
    for (const f of [{ output_grep: 'a' }, { output_head: 1 }, { output_tail: 1 }, { output_fields: ['a'] }])
      expect(hasFilters(f), JSON.stringify(f)).toBe(true);
  });
});

describe('applyFilters on lines', () => {
  it('keeps lines containing any alternative, case-insensitively, ignoring empty alternatives', () => {
    expect(applyFilters(text, { output_grep: 'beta|gamma' })).toBe('Beta 2\ngamma 3\nbeta 4\n');
    expect(applyFilters(text, { output_grep: 'BETA|' })).toBe('Beta 2\nbeta 4\n');
    expect(applyFilters(text, { output_grep: 'delta' })).toBe('');
  });

  it('takes the first or last N lines, after the grep', () => {
    expect(applyFilters(text, { output_head: 2 })).toBe('alpha 1\nBeta 2\n');
    expect(applyFilters(text, { output_tail: 2 })).toBe('gamma 3\nbeta 4\n');
    expect(applyFilters(text, { output_grep: 'beta', output_head: 1 })).toBe('Beta 2\n');
    expect(applyFilters(text, { output_grep: 'beta', output_tail: 1 })).toBe('beta 4\n');
    expect(applyFilters(text, { output_head: 3, output_tail: 1 })).toBe('gamma 3\n');
  });

  it('ends the kept lines with one newline, whether or not the output had one', () => {
    expect(applyFilters('a\nb', { output_head: 10 })).toBe('a\nb\n');
    expect(applyFilters('a\nb\n', { output_head: 10 })).toBe('a\nb\n');
    expect(applyFilters('a\n\nb', { output_head: 10 })).toBe('a\n\nb\n');
  });

  it('filters data as its indented JSON lines', () => {
    expect(applyFilters({ name: 'a', phase: 'Running' }, { output_grep: 'phase' })).toBe(' "phase": "Running"\n');
  });
});

describe('applyFilters on JSON fields', () => {
  const pods = {
    items: [
      { metadata: { name: 'a', uid: 1 }, status: { phase: 'Running' } },
      { metadata: { name: 'b' }, status: { phase: 'Failed' } },
    ],
  };

  it('keeps the named dotted paths, mapping over arrays, from data or JSON text', () => {
    const want = { 'items.metadata.name': ['a', 'b'], 'items.status.phase': ['Running', 'Failed'] };
    expect(applyFilters(pods, { output_fields: ['items.metadata.name', 'items.status.phase'] })).toEqual(want);
    expect(
      applyFilters(JSON.stringify(pods), { output_fields: ['items.metadata.name', 'items.status.phase'] }),
    ).toEqual(want);
    expect(applyFilters(pods.items, { output_fields: ['metadata.name'] })).toEqual([
      { 'metadata.name': 'a' },
      { 'metadata.name': 'b' },
    ]);
  });

  it('gives undefined where a path leads nowhere, own keys only', () => {
    expect(
      applyFilters({ a: { b: 1 }, s: 'x' }, { output_fields: ['a.c', 's.length', 'a.b.c', 'a.constructor', 'a'] }),
    ).toEqual({ 'a.c': undefined, 's.length': undefined, 'a.b.c': undefined, 'a.constructor': undefined, a: { b: 1 } });
    expect(Object.keys(applyFilters({ a: null }, { output_fields: ['a.b'] }) as object)).toEqual(['a.b']);
  });

  it('leaves text that is not JSON as it is, saying the fields were ignored', () => {
    expect(applyFilters('not json', { output_fields: ['a'] })).toBe(
      'not json\n…[output_fields ignored: the output is not JSON]',
    );
  });

  it("then greps the selected fields' JSON", () => {
    expect(applyFilters(pods, { output_fields: ['items.status.phase'], output_grep: 'fail' })).toBe('  "Failed"\n');
  });
});
