import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ParamSpecSchema, paramsToZod } from '../../../../src/tools/param-spec.js';

const spec = (s: Record<string, unknown>) => ParamSpecSchema.parse(s);
const issuesOf = (r: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }) =>
  r.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);

describe('ParamSpecSchema', () => {
  it('fills in the defaults: described as nothing, required, no leading dash', () => {
    expect(spec({ type: 'string' })).toEqual({
      type: 'string',
      description: '',
      required: true,
      allowLeadingDash: false,
    });
  });

  it('refuses unknown keys and unknown types', () => {
    expect(ParamSpecSchema.safeParse({ type: 'string', requried: false }).success).toBe(false);
    expect(ParamSpecSchema.safeParse({ type: 'date' }).success).toBe(false);
  });
});

describe('paramsToZod', () => {
  it('makes parameters required unless they say not, and refuses unknown ones', () => {
    const s = paramsToZod({ a: spec({ type: 'string' }), b: spec({ type: 'integer', required: false }) }, false);
    expect(s.safeParse({ a: 'x' }).success).toBe(true);
    expect(s.safeParse({ a: 'x', b: 2 }).success).toBe(true);
    expect(issuesOf(s.safeParse({ b: 2 }))).toEqual(['a: Invalid input: expected string, received undefined']);
    expect(s.safeParse({ a: 'x', c: 1 }).success).toBe(false);
  });

  it('types integers, numbers and booleans, with their bounds inclusive', () => {
    const s = paramsToZod(
      {
        i: spec({ type: 'integer', minimum: 1, maximum: 3 }),
        n: spec({ type: 'number', minimum: 0.5 }),
        b: spec({ type: 'boolean', required: false }),
      },
      false,
    );
    expect(s.safeParse({ i: 1, n: 0.5 }).success).toBe(true);
    expect(s.safeParse({ i: 3, n: 9.75, b: true }).success).toBe(true);
    expect(s.safeParse({ i: 0, n: 1 }).success).toBe(false);
    expect(s.safeParse({ i: 4, n: 1 }).success).toBe(false);
    expect(s.safeParse({ i: 1.5, n: 1 }).success).toBe(false);
    expect(s.safeParse({ i: 2, n: 0.4 }).success).toBe(false);
    expect(s.safeParse({ i: 2, n: 1, b: 'true' }).success).toBe(false);
    expect(paramsToZod({ m: spec({ type: 'number', maximum: 2 }) }, false).safeParse({ m: 2.5 }).success).toBe(false);
    expect(paramsToZod({ m: spec({ type: 'number' }) }, false).safeParse({ m: -1e9 }).success).toBe(true);
  });

  it('restricts to an enum: strings as strings, numbers as exactly those numbers', () => {
    const s = paramsToZod(
      { kind: spec({ type: 'string', enum: ['pods', 'nodes'] }), n: spec({ type: 'integer', enum: [1, 5] }) },
      false,
    );
    expect(s.safeParse({ kind: 'pods', n: 5 }).success).toBe(true);
    expect(s.safeParse({ kind: 'secrets', n: 5 }).success).toBe(false);
    expect(s.safeParse({ kind: 'pods', n: 2 }).success).toBe(false);
    expect(s.safeParse({ kind: 'pods', n: '5' }).success).toBe(false);
    expect(z.toJSONSchema(s)).toMatchObject({ properties: { kind: { enum: ['pods', 'nodes'] } } });
  });

  it('checks a string pattern, naming it', () => {
    const s = paramsToZod({ ns: spec({ type: 'string', pattern: '^[a-z-]+$' }) }, false);
    expect(s.safeParse({ ns: 'kube-system' }).success).toBe(true);
    expect(issuesOf(s.safeParse({ ns: 'Kube System' }))).toEqual(['ns: must match ^[a-z-]+$']);
  });

  it('caps strings at 4096 characters', () => {
    const s = paramsToZod({ q: spec({ type: 'string' }) }, false);
    expect(s.safeParse({ q: 'x'.repeat(4096) }).success).toBe(true);
    expect(s.safeParse({ q: 'x'.repeat(4097) }).success).toBe(false);
  });

  it('refuses a leading dash in command parameters only, unless allowed', () => {
    const forCommand = paramsToZod(
      { pod: spec({ type: 'string' }), since: spec({ type: 'string', allowLeadingDash: true }) },
      true,
    );
    expect(issuesOf(forCommand.safeParse({ pod: '-rf', since: '-1h' }))).toEqual(['pod: must not start with "-"']);
    expect(forCommand.safeParse({ pod: 'a-b', since: '-1h' }).success).toBe(true);
    expect(paramsToZod({ pod: spec({ type: 'string' }) }, false).safeParse({ pod: '-rf' }).success).toBe(true);
  });

  it('describes parameters to the model with their descriptions, only when given', () => {
    const s = paramsToZod({ q: spec({ type: 'string', description: 'PromQL' }), r: spec({ type: 'string' }) }, false);
    const schema = z.toJSONSchema(s) as { properties: Record<string, { description?: string }>; required: string[] };
    expect(schema.properties.q!.description).toBe('PromQL');
    expect(schema.properties.r).not.toHaveProperty('description');
    expect(schema.required).toEqual(['q', 'r']);
  });

  it('keeps a parameter named like an Object.prototype property as a parameter', () => {
    const s = paramsToZod({ constructor: spec({ type: 'string' }) }, false);
    expect(s.safeParse(Object.assign(Object.create(null), { constructor: 'x' })).success).toBe(true);
    expect(Object.keys(s.shape)).toEqual(['constructor']);
  });
});
