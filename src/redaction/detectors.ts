import { isIPv6 } from 'node:net';

/**
 * The built-in detectors of private values (docs/security.md#what-the-model-never-sees). Each regex is linear:
 * no nested unbounded quantifiers, and a lookbehind that lets a match start only where a value can begin (not
 * in the middle of a word or a number), so a long run of look-alike characters is scanned once, not once per
 * position. The lookbehinds also let a value start right after a JSON escape (`\n10.0.0.1`), since tool outputs
 * are often JSON that quotes log lines.
 */

export const DETECTOR_NAMES = [
  'email',
  'ipv4',
  'ipv6',
  'bearer',
  'jwt',
  'aws-key',
  'github-token',
  'slack-token',
  'api-key',
  'credit-card',
] as const;
export type DetectorName = (typeof DETECTOR_NAMES)[number];

export interface Detector {
  /** The detector's name (config), or the operator's pattern's. */
  name: string;
  /** The placeholder's kind: `<kind-N>`, and the counts' key. */
  kind: string;
  /** Global regexes: every match is a value, unless `valid` says otherwise. */
  patterns: RegExp[];
  valid?: (value: string) => boolean;
}

/**
 * A value may start here: not after one of `chars` (nor a backslash), but right after a JSON escape is fine. The
 * backslash comes first in the class, so a `-` ending `chars` stays a hyphen, not a range.
 */
const after = (chars: string) => `(?<=^|[^\\\\${chars}]|\\\\[nrtbf])`;

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';

/** Not private, and the model needs them as they are ("listens on 0.0.0.0"). */
const PUBLIC_ADDRESSES = new Set(['0.0.0.0', '127.0.0.1', '255.255.255.255', '::', '::1']);

const BUILT_IN: Record<DetectorName, Omit<Detector, 'name'>> = {
  email: {
    kind: 'email',
    patterns: [
      new RegExp(`${after('\\w.%+-')}[\\w.%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\\.){1,10}[A-Za-z]{2,24}(?![\\w-])`, 'g'),
    ],
  },
  ipv4: {
    kind: 'ip',
    // Not "v1.2.3.4" (a version), not part of a longer dotted number.
    patterns: [new RegExp(`${after('\\d.')}(?<!(?:^|[^A-Za-z])[vV])(?:${OCTET}\\.){3}${OCTET}(?![\\w-]|\\.\\d)`, 'g')],
    valid: (v) => !PUBLIC_ADDRESSES.has(v),
  },
  ipv6: {
    kind: 'ip',
    // A candidate, checked by node:net (so "12:34:56" or a MAC address is not one).
    patterns: [
      new RegExp(
        `${after('\\w:.')}(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|(?:\\d{1,3}\\.){3}\\d{1,3})?(?![\\w:]|\\.\\d)`,
        'g',
      ),
    ],
    valid: (v) => isIPv6(v) && !PUBLIC_ADDRESSES.has(v),
  },
  bearer: {
    kind: 'token',
    patterns: [/(?<=\b(?:[Bb]earer|BEARER|[Bb]asic|BASIC)[ \t]{1,4})[A-Za-z0-9._~+/-]{8,}=*/g],
  },
  jwt: {
    kind: 'jwt',
    patterns: [new RegExp(`${after('\\w-')}eyJ[\\w-]{4,}\\.eyJ[\\w-]{4,}\\.[\\w-]*`, 'g')],
  },
  'aws-key': {
    kind: 'key',
    patterns: [
      new RegExp(`${after('A-Za-z0-9')}(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|AIPA)[A-Z0-9]{16}(?![A-Za-z0-9])`, 'g'),
    ],
  },
  'github-token': {
    kind: 'key',
    patterns: [
      new RegExp(`${after('\\w')}(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,242})(?![\\w])`, 'g'),
    ],
  },
  'slack-token': {
    kind: 'key',
    patterns: [
      new RegExp(`${after('A-Za-z0-9-')}xox[abposre]-[A-Za-z0-9-]{10,250}`, 'g'),
      /hooks\.slack\.com\/services\/[A-Za-z0-9_/-]{10,200}/g,
    ],
  },
  'api-key': {
    kind: 'key',
    patterns: [
      new RegExp(`${after('\\w-')}sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,250}`, 'g'),
      new RegExp(`${after('\\w-')}AIza[0-9A-Za-z_-]{35}(?![\\w-])`, 'g'),
      // password=…, api_key: "…", token=… when the value has a digit (not "token: expired").
      /(?<=\b(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|secret|password|passwd|token)["']?[ \t]{0,3}[:=][ \t]{0,3}["']?)(?=[^\s"',;&]{0,200}\d)[^\s"',;&]{6,200}/gi,
    ],
  },
  'credit-card': {
    kind: 'card',
    // 15 or 16 digits (Visa, Mastercard, Discover, Amex; epoch timestamps start with 1), by Luhn.
    patterns: [
      new RegExp(
        `${after('\\d.-')}(?:[2-6]\\d{3}(?:[ -]?\\d{4}){2}[ -]?\\d{3,4}|3[47]\\d{2}[ -]?\\d{6}[ -]?\\d{5})(?![\\d-]|\\.\\d)`,
        'g',
      ),
    ],
    valid: (v) => luhn(v.replace(/[ -]/g, '')),
  },
};

/** The built-in detectors, in the order they run (the more specific shapes before the broad ones). */
const ORDER: DetectorName[] = [
  'jwt',
  'bearer',
  'aws-key',
  'github-token',
  'slack-token',
  'api-key',
  'credit-card',
  'email',
  'ipv6',
  'ipv4',
];

/** The detectors switched on, in their running order. */
export function builtInDetectors(on: (name: DetectorName) => boolean): Detector[] {
  return ORDER.filter(on).map((name) => ({ name, ...BUILT_IN[name] }));
}

/** The Luhn checksum of a string of digits. */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (d < 0 || d > 9) return false;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return digits.length > 0 && sum % 10 === 0;
}
