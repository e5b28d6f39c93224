import { describe, expect, it } from 'vitest';
import { RedactionConfigSchema, redactionRules } from '../../../../src/config/redaction-schema.js';
import { luhn } from '../../../../src/redaction/detectors.js';
import { Redaction } from '../../../../src/redaction/redaction.js';

/** A fresh investigation's redaction with the default rules, and the text through it. */
function redact(text: string, config: unknown = {}): { out: string; placeholders: Record<string, string> } {
  const state = { placeholders: {} };
  const out = new Redaction(redactionRules(RedactionConfigSchema.parse(config))!, state).text(text);
  return { out, placeholders: state.placeholders };
}

describe('built-in detectors: what they replace', () => {
  it.each([
    ['email', 'mail jane.doe+ops@corp.example.com now', 'mail <email-1> now'],
    ['ipv4', 'from 10.20.30.40:9090 to 192.168.1.7.', 'from <ip-1>:9090 to <ip-2>.'],
    [
      'after = and : (not a range in the lookbehind)',
      'owner=sre@corp.example.com ip=10.0.0.9 IP:10.0.0.8',
      'owner=<email-1> ip=<ip-1> IP:<ip-2>',
    ],
    ['ipv4 after a JSON escape', '"line one\\n10.0.0.5 refused"', '"line one\\n<ip-1> refused"'],
    ['ipv6', 'peer 2001:db8::8a2e:370:7334 and fe80::1', 'peer <ip-1> and <ip-2>'],
    ['ipv6 full form', 'addr 2001:0db8:85a3:0000:0000:8a2e:0370:7334 up', 'addr <ip-1> up'],
    ['bearer', 'Authorization: Bearer abc.DEF-123_xyz~tok', 'Authorization: Bearer <token-1>'],
    ['jwt', 'cookie eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.sig-nature_1 end', 'cookie <jwt-1> end'],
    ['aws key', 'key=AKIAIOSFODNN7EXAMPLE;', 'key=<key-1>;'],
    ['github token', `t ghp_${'a1B2'.repeat(9)} x`, 't <key-1> x'],
    ['github fine-grained', `github_pat_${'A1b_'.repeat(8)}`, '<key-1>'],
    ['slack token', 'xoxb-123456789012-abcdefABCDEF', '<key-1>'],
    ['slack webhook', 'https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXX', 'https://<key-1>'],
    ['sk- key', 'OPENAI sk-proj-abcdefghijklmnopqrstuvwx', 'OPENAI <key-1>'],
    ['password assignment', 'password=hunter22 user=bob', 'password=<key-1> user=bob'],
    ['credit card', 'card 4111 1111 1111 1111 ok', 'card <card-1> ok'],
    ['credit card (Amex, 15 digits)', 'amex 378282246310005.', 'amex <card-1>.'],
  ])('%s', (_name, input, expected) => {
    expect(redact(input).out).toBe(expected);
  });

  it('keeps what is not private: timestamps, versions, durations, loopback, code, failed Luhn', () => {
    const text = [
      '2026-12-07T21:50:03.123Z 12:34:56 took 1.25s',
      'v1.2.3.4 release 1.2.3 image:1.27.3',
      'listening on 0.0.0.0:8080 and 127.0.0.1 and ::1',
      'Vec::new std::string 1.2.3.4.5',
      'epoch 1733600000000 and 1733600000000000 trace 4bf92f3577b34da6a3ce929d0e0e4736',
      'card 4111 1111 1111 1112 mac 00:1a:2b:3c:4d:5e',
      'token: expired, Bearer of bad news',
    ].join('\n');
    expect(redact(text).out).toBe(text);
  });

  it('gives the same value the same placeholder, and each kind its own numbers', () => {
    const { out, placeholders } = redact('a@x.io 10.0.0.1 b@x.io a@x.io 10.0.0.1');
    expect(out).toBe('<email-1> <ip-1> <email-2> <email-1> <ip-1>');
    expect(placeholders).toEqual({ '<email-1>': 'a@x.io', '<ip-1>': '10.0.0.1', '<email-2>': 'b@x.io' });
  });

  it('switched off one by one; operators patterns run first, under their own name', () => {
    const config = { detectors: { ipv4: false }, patterns: [{ name: 'customer', regex: 'CUST-\\d{6}' }] };
    expect(redact('10.0.0.1 CUST-123456 a@b.io', config).out).toBe('10.0.0.1 <customer-1> <email-1>');
  });

  it('never redacts a placeholder again, not even with a pattern that would match inside it', () => {
    const config = { patterns: [{ name: 'word', regex: '[a-z]+-\\d' }] };
    expect(redact('ip-1 <ip-7> x', config).out).toBe('<word-1> <ip-7> x');
  });

  it('stays linear on long adversarial input (a quadratic regex would not finish in the test timeout)', () => {
    const n = 200_000;
    const inputs = [
      'a'.repeat(n) + '@',
      'a.'.repeat(n / 2) + '@b',
      'a@' + 'b.'.repeat(n / 2),
      '1.'.repeat(n / 2),
      '1:'.repeat(n / 2),
      '1 '.repeat(n / 2),
      'eyJ' + 'a'.repeat(n) + '.eyJ',
      'Bearer ' + 'a'.repeat(n),
      'password=' + 'a'.repeat(n),
      '\\n'.repeat(n / 2),
      'sk-' + '-'.repeat(n),
    ];
    for (const input of inputs) expect(redact(input).out.length).toBeGreaterThan(0);
  });
});

describe('luhn', () => {
  it('checks the digit sum', () => {
    expect(luhn('4111111111111111')).toBe(true);
    expect(luhn('4111111111111112')).toBe(false);
    expect(luhn('79927398713')).toBe(true);
    expect(luhn('')).toBe(false);
    expect(luhn('41x1')).toBe(false);
  });
});

describe('redaction config', () => {
  it('names the field and why for a bad pattern', () => {
    const bad = RedactionConfigSchema.safeParse({ patterns: [{ name: 'x', regex: '(' }] });
    expect(bad.success).toBe(false);
    expect(JSON.stringify(bad.error?.issues)).toContain('not a valid regular expression');
    const empty = RedactionConfigSchema.safeParse({ patterns: [{ name: 'x', regex: 'a*' }] });
    expect(JSON.stringify(empty.error?.issues)).toContain('matches the empty string');
    const name = RedactionConfigSchema.safeParse({ patterns: [{ name: 'Bad-Name', regex: 'a' }] });
    expect(name.error?.issues[0]?.path).toEqual(['patterns', 0, 'name']);
    expect(RedactionConfigSchema.safeParse({ restoreIn: ['slack-public'] }).success).toBe(false);
  });

  it('defaults: on, every detector, restored on the dashboard only; off gives no rules', () => {
    const config = RedactionConfigSchema.parse({});
    expect(config.enabled).toBe(true);
    expect(Object.values(config.detectors).every(Boolean)).toBe(true);
    expect(config.restoreIn).toEqual(['dashboard']);
    expect(redactionRules(RedactionConfigSchema.parse({ enabled: false }))).toBeNull();
  });
});
