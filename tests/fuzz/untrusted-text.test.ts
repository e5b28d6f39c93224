import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../src/records/tool-result.js';
import { vouchedHosts } from '../../src/render/vouched-hosts.js';
import { checkJsonSchemaArgs } from '../../src/tools/json-schema-args.js';
import { parseApprovalCommands } from '../../sources/common/approval-commands.js';
import { fcParams } from './arbitraries.js';

/**
 * Properties of third-party text: a host the model wrote into a call's arguments is never vouched for by that
 * call's result, however the result repeats it; an MCP server's patterns (on RE2) decide as ECMAScript would
 * on the patterns servers write; a command inside a <details> block is never taken, whatever surrounds it.
 */
const label = fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/);
const host = fc.tuple(label, label, fc.constantFrom('example', 'internal', 'com', 'io')).map((p) => p.join('.'));
const filler = fc.string({ maxLength: 30 }).map((s) => s.replace(/[<>]/g, ''));

describe('hosts the model wrote', () => {
  it('are never vouched for by the result of the call whose arguments hold them', () => {
    fc.assert(
      fc.property(host, filler, filler, fc.boolean(), fc.boolean(), (h, before, after, scheme, upper) => {
        const written = `${scheme ? 'https://' : ''}${upper ? h.toUpperCase() : h}`;
        const result: ToolResult = {
          tool: 'prometheus_query',
          status: 'success',
          data: `${before} https://${h}/phish ${after}`,
          params: { query: `${before}${written}${after}` },
          elapsedMs: 1,
          vouches: true,
        };
        expect(vouchedHosts([result])).not.toContain(h);
      }),
      fcParams(300),
    );
  });
});

describe("an MCP server's patterns on RE2", () => {
  const PATTERNS = [
    '^[a-z0-9-]+$',
    '^\\d{4}-\\d{2}-\\d{2}$',
    '^[A-Za-z_][A-Za-z0-9_]*$',
    '\\.json$',
    '^(?:https?://)?[\\w-]+(?:\\.[\\w-]+)*(?::\\d{1,5})?$',
    '^(a+)+$',
    '^[^/]+/[^/]+$',
    '^(?<ns>[a-z]+)/(?<name>[a-z0-9-]+)$',
    '^\\u00e9?[\\p{L}]+$',
  ];
  it('decide as ECMAScript does', () => {
    const input = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.stringMatching(/^[a-z0-9./:_-]{0,20}$/),
      fc.stringMatching(/^[0-9-]{10}$/),
    );
    fc.assert(
      fc.property(fc.constantFrom(...PATTERNS), input, (pattern, s) => {
        const schema = { type: 'object', properties: { s: { type: 'string', pattern } } };
        expect(checkJsonSchemaArgs(schema, { s }) === null).toBe(new RegExp(pattern, 'u').test(s));
      }),
      fcParams(500),
    );
  });
});

describe('a command inside a <details> block', () => {
  it('is never taken, whatever lines surround it inside the block', () => {
    // No fence markers: a fence opened inside the block would, rightly, hold its closing tag as code.
    const plain = filler.map((s) => s.replace(/[`~]/g, ''));
    const line = fc.oneof(plain, fc.constant(''), fc.constant('/lestrade approve call_inner'));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 6 }), fc.array(line, { maxLength: 6 }), (above, below) => {
        const text = [
          '<details><summary>older</summary>',
          ...above,
          '/lestrade approve call_hidden',
          ...below,
          '</details>',
        ];
        expect(parseApprovalCommands(text.join('\n'), 'markdown').commands).toEqual([]);
        const after = parseApprovalCommands([...text, '/lestrade approve call_after'].join('\n'), 'markdown');
        expect(after.commands.map((c) => c.toolCallId)).toEqual(['call_after']);
      }),
      fcParams(300),
    );
  });
});
