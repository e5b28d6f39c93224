import { describe, expect, it } from 'vitest';
import {
  AddNoteAnswerSchema,
  JsmAlertSchema,
  JsmNoteSchema,
  jsmReason,
  ListAlertsSchema,
  ListNotesSchema,
  RequestStatusSchema,
  TenantInfoSchema,
} from '../../../../sources/jsm-ops/schema.js';

/** An alert as GET …/v1/alerts/{id} answers it (swagger.v3.json: AlertResponse). */
const alert = () => ({
  id: 'b5e0f6a1-7c2d-4e3f-9a8b-1c0d2e3f4a5b-1718031599062',
  tinyId: '77',
  alias: 'checkout-errors',
  message: 'CheckoutHighErrorRate',
  description: '5xx ratio 12%',
  status: 'open',
  acknowledged: false,
  tags: ['payments'],
  priority: 'P1',
  entity: 'checkout',
  source: 'alertmanager',
  createdAt: '2024-06-10T14:59:59.062Z',
  updatedAt: '2024-06-10T15:05:00.123Z',
  count: 1,
  owner: '',
  responders: [],
  extraProperties: { runbook_url: 'https://runbooks.example.com/checkout' },
});
const refusal = (
  schema: { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } } },
  value: unknown,
) => {
  const r = schema.safeParse(value);
  return r.success ? null : r.error!.issues[0]!.path.join('.');
};

describe('JSM Operations alert answers', () => {
  it('accept an alert with its extra properties as sent, and a list with its count and next link', () => {
    expect(JsmAlertSchema.parse(alert())).toMatchObject({
      id: alert().id,
      tinyId: '77',
      extraProperties: alert().extraProperties,
    });
    const list = ListAlertsSchema.parse({
      values: [alert()],
      count: 1,
      links: { next: 'https://api.atlassian.com/jsm/ops/api/c/v1/alerts?offset=1' },
    });
    expect([list.values.length, list.count, list.links?.next]).toEqual([1, 1, expect.stringMatching(/offset=1/)]);
    expect(ListAlertsSchema.parse({ values: [], count: null, links: null }).links).toBeNull();
  });

  it('take null for any optional field', () => {
    const nulls = Object.fromEntries(
      [
        'tinyId',
        'alias',
        'message',
        'description',
        'status',
        'tags',
        'priority',
        'entity',
        'source',
        'createdAt',
        'updatedAt',
        'extraProperties',
      ].map((k) => [k, null]),
    );
    expect(JsmAlertSchema.safeParse({ id: 'a1', ...nulls }).success).toBe(true);
  });

  it('need an alert id, naming the field', () => {
    expect(refusal(JsmAlertSchema, { ...alert(), id: '' })).toBe('id');
    expect(refusal(ListAlertsSchema, { values: [{ id: 'x' }, {}] })).toBe('values.1.id');
    expect(refusal(ListAlertsSchema, { count: 1 })).toBe('values');
  });

  it.each([
    ['message', 5],
    ['tags', 'payments'],
    ['extraProperties', ['a']],
    ['extraProperties', 'text'],
    ['extraProperties', 1],
  ] as const)('refuse %s as %j, naming it', (field, value) => {
    expect(refusal(JsmAlertSchema, { ...alert(), [field]: value })).toMatch(new RegExp(`^${field}`));
  });

  it('check the count and the next link', () => {
    expect(refusal(ListAlertsSchema, { values: [], count: '1' })).toBe('count');
    expect(refusal(ListAlertsSchema, { values: [], links: { next: 1 } })).toBe('links.next');
  });
});

describe('JSM Operations notes', () => {
  it('accept a page of notes, each needing an id', () => {
    const page = ListNotesSchema.parse({
      values: [{ id: 'n1', note: 'Looking', owner: 'alice', createdAt: '2024-06-10T15:00:00Z' }],
      links: { next: null },
    });
    expect(page.values[0]).toEqual({ id: 'n1', note: 'Looking', owner: 'alice', createdAt: '2024-06-10T15:00:00Z' });
    expect(refusal(ListNotesSchema, { values: [{ id: '' }] })).toBe('values.0.id');
    expect(refusal(JsmNoteSchema, { id: 'n', note: 5 })).toBe('note');
  });

  it('read adding a note as the note (200) or as a request to poll (202)', () => {
    expect(AddNoteAnswerSchema.parse({ id: 'n9', note: 'RCA', owner: 'lestrade', createdAt: 'x' })).toEqual({
      kind: 'note',
      id: 'n9',
    });
    expect(AddNoteAnswerSchema.parse({ result: 'Request will be processed', requestId: 'r7', took: 0.1 })).toEqual({
      kind: 'request',
      requestId: 'r7',
    });
    expect(AddNoteAnswerSchema.safeParse({ id: '' }).success).toBe(false);
    expect(AddNoteAnswerSchema.safeParse({ requestId: '' }).success).toBe(false);
  });

  it("read a request's status", () => {
    expect(
      RequestStatusSchema.parse({ isSuccess: true, status: 'Added note', alertId: 'a1', action: 'AddNote' }),
    ).toEqual({ isSuccess: true, status: 'Added note', alertId: 'a1' });
    expect(refusal(RequestStatusSchema, { isSuccess: 'true' })).toBe('isSuccess');
    expect(refusal(RequestStatusSchema, { alertId: 1 })).toBe('alertId');
  });
});

describe("the tenant's cloud id", () => {
  it('is letters, digits, _ and - only, whole', () => {
    expect(TenantInfoSchema.parse({ cloudId: '0ea4d2f1-5b6c-4d7e-8f90-a1b2c3d4e5f6' }).cloudId).toBe(
      '0ea4d2f1-5b6c-4d7e-8f90-a1b2c3d4e5f6',
    );
    for (const bad of ['', '../x', 'abc/', '/abc', 'a b'])
      expect(refusal(TenantInfoSchema, { cloudId: bad }), bad).toBe('cloudId');
  });
});

describe('jsmReason', () => {
  it("says each error's title and code, then the message", () => {
    expect(jsmReason({ errors: [{ title: 'Alert not found', code: 'NOT_FOUND' }, { title: 'second' }] })).toBe(
      'Alert not found NOT_FOUND; second',
    );
    expect(jsmReason({ code: 401, message: 'Unauthorized' })).toBe('Unauthorized');
    expect(jsmReason({ errors: [{ title: '', code: 5 }], message: 'm' })).toBe('m');
  });

  it('keeps the first 300 characters of a text body, and says nothing of other bodies', () => {
    expect(jsmReason('y'.repeat(301))).toBe('y'.repeat(300));
    for (const body of [null, undefined, 7, '', { errors: 'x' }, { message: 5 }])
      expect(jsmReason(body), JSON.stringify(body)).toBe('');
  });
});
