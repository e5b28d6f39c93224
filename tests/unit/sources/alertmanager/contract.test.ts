import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { RFC3339_PATTERN, WebhookPayloadSchema } from '../../../../sources/alertmanager/schema.js';
import { amCaptured, amFixture } from '../../../helpers/fixtures.js';

/**
 * Our zod schema must accept and reject exactly what the webhook v4 JSON Schema does
 * (tests/fixtures/alertmanager/webhook-v4.schema.json, written from Alertmanager's source).
 */
const jsonSchema = JSON.parse(
  readFileSync(new URL('../../../fixtures/alertmanager/webhook-v4.schema.json', import.meta.url), 'utf8'),
);
const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
const validate = ajv.compile(jsonSchema);

type Body = Record<string, any>;
const base = amFixture('group-firing-truncated').body as Body;
const mutations: Array<[string, (b: Body) => void]> = [
  ['as delivered', () => {}],
  [
    'version 3',
    (b) => {
      b.version = '3';
    },
  ],
  [
    'version as number',
    (b) => {
      b.version = 4;
    },
  ],
  [
    'negative truncatedAlerts',
    (b) => {
      b.truncatedAlerts = -1;
    },
  ],
  [
    'fractional truncatedAlerts',
    (b) => {
      b.truncatedAlerts = 1.5;
    },
  ],
  [
    'unknown status',
    (b) => {
      b.status = 'pending';
    },
  ],
  [
    'alerts not an array',
    (b) => {
      b.alerts = {};
    },
  ],
  [
    'no alerts',
    (b) => {
      b.alerts = [];
    },
  ],
  [
    'label value a number',
    (b) => {
      b.alerts[0].labels.severity = 5;
    },
  ],
  [
    'annotation value null',
    (b) => {
      b.alerts[0].annotations.summary = null;
    },
  ],
  [
    'upper-case fingerprint',
    (b) => {
      b.alerts[0].fingerprint = 'E02342136CA8C633';
    },
  ],
  [
    'short fingerprint',
    (b) => {
      b.alerts[0].fingerprint = 'e0234213';
    },
  ],
  [
    'alert status resolved',
    (b) => {
      b.alerts[0].status = 'resolved';
    },
  ],
  [
    'extra top-level key (newer Alertmanager)',
    (b) => {
      b.notification_reason = 'repeat';
    },
  ],
  [
    'routeLabels',
    (b) => {
      b.routeLabels = { team: 'sre' };
    },
  ],
  [
    'routeLabels not strings',
    (b) => {
      b.routeLabels = { team: 1 };
    },
  ],
  [
    'extra alert key',
    (b) => {
      b.alerts[0].silenceURL = 'x';
    },
  ],
  // Timestamps: Alertmanager marshals Go time.Time values, i.e. RFC 3339 with up to 9 fractional digits.
  [
    'startsAt with nanoseconds and an offset',
    (b) => {
      b.alerts[0].startsAt = '2024-01-01T01:00:00.123456789+01:00';
    },
  ],
  [
    'zero endsAt',
    (b) => {
      b.alerts[0].endsAt = '0001-01-01T00:00:00Z';
    },
  ],
  [
    'empty startsAt',
    (b) => {
      b.alerts[0].startsAt = '';
    },
  ],
  [
    'startsAt "yesterday"',
    (b) => {
      b.alerts[0].startsAt = 'yesterday';
    },
  ],
  [
    'endsAt "never"',
    (b) => {
      b.alerts[0].endsAt = 'never';
    },
  ],
  [
    'startsAt without a zone',
    (b) => {
      b.alerts[0].startsAt = '2024-01-01T00:00:00';
    },
  ],
  [
    'startsAt with a space for T',
    (b) => {
      b.alerts[0].startsAt = '2024-01-01 00:00:00Z';
    },
  ],
  [
    'startsAt in month 13',
    (b) => {
      b.alerts[0].startsAt = '2024-13-01T00:00:00Z';
    },
  ],
  [
    'startsAt with 10 fractional digits',
    (b) => {
      b.alerts[0].startsAt = '2024-01-01T00:00:00.1234567890Z';
    },
  ],
  [
    'label named __proto__',
    (b) => {
      b.alerts[0].labels = JSON.parse('{"__proto__": "x", "alertname": "A"}');
    },
  ],
  [
    'annotation __proto__ not a string',
    (b) => {
      b.alerts[0].annotations = JSON.parse('{"__proto__": {"polluted": "yes"}}');
    },
  ],
  ...[
    'version',
    'groupKey',
    'truncatedAlerts',
    'receiver',
    'status',
    'alerts',
    'groupLabels',
    'commonLabels',
    'commonAnnotations',
    'externalURL',
  ].map((k): [string, (b: Body) => void] => [
    `without ${k}`,
    (b) => {
      delete b[k];
    },
  ]),
  ...['status', 'labels', 'annotations', 'startsAt', 'endsAt', 'generatorURL', 'fingerprint'].map(
    (k): [string, (b: Body) => void] => [
      `alert without ${k}`,
      (b) => {
        delete b.alerts[1][k];
      },
    ],
  ),
];

describe('webhook schema agrees with webhook-v4.schema.json', () => {
  it.each(mutations)('%s', (_name, mutate) => {
    const body = structuredClone(base);
    mutate(body);
    expect(WebhookPayloadSchema.safeParse(body).success).toBe(validate(body));
  });

  it('is not vacuous: most mutations are rejected by both', () => {
    const verdicts = mutations.map(([, mutate]) => {
      const b = structuredClone(base);
      mutate(b);
      return validate(b);
    });
    expect(verdicts.filter((v) => !v).length).toBe(mutations.length - 9);
  });

  it('checks timestamps with the same RFC 3339 pattern', () => {
    expect(jsonSchema.$defs.time.pattern).toBe(RFC3339_PATTERN);
  });

  it('keeps a label named __proto__ as data', () => {
    const body = structuredClone(base);
    body.alerts[0].labels = JSON.parse('{"__proto__": "x", "alertname": "A"}');
    const parsed = WebhookPayloadSchema.parse(body);
    expect(Object.entries(parsed.alerts[0]!.labels)).toEqual([
      ['__proto__', 'x'],
      ['alertname', 'A'],
    ]);
    expect(Object.getPrototypeOf(parsed.alerts[0]!.labels)).toBe(Object.prototype);
  });

  it('on every captured delivery', () => {
    for (const d of [
      amCaptured('firing'),
      amCaptured('resolved'),
      amFixture('group-mixed-resolved'),
      amFixture('group-next'),
    ]) {
      expect(validate(d.body)).toBe(true);
      expect(WebhookPayloadSchema.safeParse(d.body).success).toBe(true);
    }
  });
});
