import { describe, expect, it } from 'vitest';
import { checkJsonSchemaArgs, schemaProblem } from '../../../../src/tools/json-schema-args.js';

const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, replicas: { type: 'integer', minimum: 1 } },
  required: ['name'],
  additionalProperties: false,
};

describe("checking a tool's arguments against the JSON Schema it declared", () => {
  it('passes arguments that hold', () => {
    expect(checkJsonSchemaArgs(SCHEMA, { name: 'api', replicas: 2 })).toBeNull();
  });

  it('names every field that fails and why, the root as (root)', () => {
    expect(checkJsonSchemaArgs(SCHEMA, { replicas: 0 })).toBe(
      "(root) must have required property 'name'; /replicas must be >= 1",
    );
    expect(checkJsonSchemaArgs(SCHEMA, 'api')).toBe('(root) must be object');
  });

  it('gives at most five reasons', () => {
    const schema = {
      type: 'object',
      properties: Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((k) => [k, { type: 'string' }])),
    };
    const args = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((k) => [k, 1]));
    expect(checkJsonSchemaArgs(schema, args)).toBe(
      '/a must be string; /b must be string; /c must be string; /d must be string; /e must be string',
    );
  });

  it('takes schemas written for others: keywords it does not know, formats it cannot check', () => {
    const schema = {
      type: 'object',
      title: 'Restart',
      examples: [{ at: 'now' }],
      'x-vendor-hint': true,
      properties: { at: { type: 'string', format: 'date-time' } },
    };
    expect(checkJsonSchemaArgs(schema, { at: 'now' })).toBeNull();
  });

  it('refuses every call, saying why, when the schema cannot be compiled', () => {
    const schema = { type: 'object', properties: { n: { type: 'no-such-type' } } };
    const first = checkJsonSchemaArgs(schema, { n: 1 });
    expect(first).toMatch(/^the tool's input schema is not usable: schema is invalid: data\/properties\/n\/type /);
    expect(checkJsonSchemaArgs(schema, {})).toBe(first);
  });

  // Doubling per character on a backtracking engine: 29 characters took ~3 s on the event loop; RE2 takes a moment.
  const EVIL = `${'a'.repeat(29)}!`;

  it("runs a server's patterns in linear time: a catastrophic pattern answers at once (pattern, patternProperties)", () => {
    const started = performance.now();
    const pattern = { type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } } };
    expect(checkJsonSchemaArgs(pattern, { q: EVIL })).toBe('/q must match pattern "^(a+)+$"');
    expect(checkJsonSchemaArgs(pattern, { q: 'aaa' })).toBeNull();
    const keys = { type: 'object', patternProperties: { '^(a+)+$': { type: 'number' } } };
    expect(checkJsonSchemaArgs(keys, { [EVIL]: 'x', aa: 1 })).toBeNull();
    expect(checkJsonSchemaArgs(keys, { aa: 'x' })).toBe('/aa must be number');
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('reads patterns as ECMAScript writes them (escapes, classes, named groups)', () => {
    const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^\\u00e9\\/(?<x>[\\w.-]+)\\d$' } } };
    expect(checkJsonSchemaArgs(schema, { s: 'é/api.v-2' })).toBeNull();
    expect(checkJsonSchemaArgs(schema, { s: 'e/api' })).toMatch(/must match pattern/);
  });

  it('calls a schema unusable, before any call, when RE2 cannot run one of its patterns', () => {
    const backref = { type: 'object', properties: { s: { type: 'string', pattern: '(a)\\1' } } };
    const lookahead = { type: 'object', patternProperties: { '(?=a)': { type: 'number' } } };
    expect(schemaProblem(backref)).toMatch(/^the tool's input schema is not usable: .*\\1/);
    expect(schemaProblem(lookahead)).toMatch(/^the tool's input schema is not usable: .*\(\?=/);
    expect(checkJsonSchemaArgs(backref, { s: 'aa' })).toBe(schemaProblem(backref));
    expect(schemaProblem(SCHEMA)).toBeNull();
  });
});
