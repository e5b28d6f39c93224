import { describe, expect, it } from 'vitest';
import { RedactionConfigSchema, redactionRules } from '../../../../src/config/redaction-schema.js';
import { redactionCounts, kindOf } from '../../../../src/records/redaction-state.js';
import { redactMessages } from '../../../../src/redaction/redact-messages.js';
import { Redaction, restoreDeep, restoreWith } from '../../../../src/redaction/redaction.js';

const rules = redactionRules(RedactionConfigSchema.parse({}))!;
const fresh = () => {
  const state = { placeholders: {} as Record<string, string> };
  return { state, redaction: new Redaction(rules, state) };
};

describe('Redaction', () => {
  it('redacts JSON value by value, so an escaped line break before a value does not hide or change it', () => {
    const { redaction, state } = fresh();
    const doc = JSON.stringify({ data: 'line\nuser@corp.example at 10.0.0.5', n: 3 });
    expect(JSON.parse(redaction.json(doc))).toEqual({ data: 'line\n<email-1> at <ip-1>', n: 3 });
    expect(state.placeholders).toEqual({ '<email-1>': 'user@corp.example', '<ip-1>': '10.0.0.5' });
    // Nothing to replace: the text is handed back as it was (not re-serialised).
    expect(redaction.json('{ "a": 1 }')).toBe('{ "a": 1 }');
    expect(redaction.json('not json 10.0.0.6')).toBe('not json <ip-2>');
    expect(redaction.json('"10.0.0.7"')).toBe('"<ip-3>"');
  });

  it('redacts every string in a value, keeping keys', () => {
    const { redaction } = fresh();
    expect(redaction.deep({ 'a@b.io': ['a@b.io', 1, null, { x: 'Bearer abcdefghij' }] })).toEqual({
      'a@b.io': ['<email-1>', 1, null, { x: 'Bearer <token-1>' }],
    });
  });

  it('gives the same answer for a long text seen again, and numbers go on from a state handed in', () => {
    const state = { placeholders: { '<ip-4>': '10.0.0.4', '<email-1>': 'x@y.io' } };
    const redaction = new Redaction(rules, state);
    const long = `${'padding '.repeat(10)} 10.0.0.4 10.0.0.8 x@y.io z@y.io`;
    const once = redaction.text(long);
    expect(once).toBe(`${'padding '.repeat(10)} <ip-4> <ip-5> <email-1> <email-2>`);
    expect(redaction.text(long)).toBe(once);
    expect(redactionCounts(state)).toEqual({ ip: 2, email: 2 });
  });

  it('maps placeholders back, only those of this investigation', () => {
    const { redaction } = fresh();
    redaction.text('10.0.0.1 a@b.io');
    expect(redaction.restore('<ip-1> and <email-1>, not <ip-9> or <IP-1>')).toBe(
      '10.0.0.1 and a@b.io, not <ip-9> or <IP-1>',
    );
    expect(restoreWith(undefined, '<ip-1>')).toBe('<ip-1>');
    const state = { placeholders: { '<ip-1>': '10.0.0.1' } };
    expect(restoreDeep(state, { host: '<ip-1>:9090', list: ['<ip-1>'], n: 1 })).toEqual({
      host: '10.0.0.1:9090',
      list: ['10.0.0.1'],
      n: 1,
    });
    // A placeholder that names an inherited property is no placeholder of ours.
    expect(restoreWith({ placeholders: {} }, '<constructor-1>')).toBe('<constructor-1>');
  });

  it('calls onNew once per new value', () => {
    const kinds: string[] = [];
    const redaction = new Redaction(rules, { placeholders: {} }, (k) => kinds.push(k));
    redaction.text('10.0.0.1 10.0.0.1 a@b.io');
    redaction.text('10.0.0.1');
    expect(kinds).toEqual(['email', 'ip']);
  });
});

describe('redactMessages', () => {
  it('redacts every role, the model’s call arguments and content parts, and leaves the conversation as it was', () => {
    const { redaction } = fresh();
    const messages = [
      { role: 'system' as const, content: 'ops a@b.io' },
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'host 10.0.0.1' }] },
      {
        role: 'assistant' as const,
        content: 'checking 10.0.0.1',
        tool_calls: [
          { id: 'c1', type: 'function' as const, function: { name: 'f', arguments: '{"host":"10.0.0.2"}' } },
        ],
      },
      { role: 'tool' as const, tool_call_id: 'c1', content: '{"data":"up\\n10.0.0.2"}' },
    ];
    const before = JSON.stringify(messages);
    const out = redactMessages(redaction, messages);
    expect(JSON.stringify(messages)).toBe(before);
    expect(out).toEqual([
      { role: 'system', content: 'ops <email-1>' },
      { role: 'user', content: [{ type: 'text', text: 'host <ip-1>' }] },
      {
        role: 'assistant',
        content: 'checking <ip-1>',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"host":"<ip-2>"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"data":"up\\n<ip-2>"}' },
    ]);
  });
});

describe('kindOf', () => {
  it('reads the kind of a placeholder', () => {
    expect(kindOf('<email-12>')).toBe('email');
    expect(kindOf('<customer_id-1>')).toBe('customer_id');
    expect(kindOf('email-1')).toBeNull();
  });
});
