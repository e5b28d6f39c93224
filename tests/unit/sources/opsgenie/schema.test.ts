import { describe, expect, it } from 'vitest';
import {
  AcceptedSchema,
  AlertNoteSchema,
  BaseAlertSchema,
  GetAlertSchema,
  ListAlertsSchema,
  ListNotesSchema,
  opsgenieReason,
  RequestStatusSchema,
} from '../../../../sources/opsgenie/schema.js';

/** An alert as GET /v2/alerts/{id} answers it (opsgenie-oas: Alert). */
const alert = () => ({
  id: '70413a06-38d6-4c85-92b8-5ebc900d42e2-1718031599062',
  tinyId: '1042',
  alias: 'checkout-errors',
  message: 'CheckoutHighErrorRate',
  status: 'open',
  acknowledged: false,
  isSeen: true,
  tags: ['payments', 'env:prod'],
  snoozed: false,
  count: 3,
  lastOccurredAt: '2024-06-10T15:05:00.000Z',
  createdAt: '2024-06-10T14:59:59.062Z',
  updatedAt: '2024-06-10T15:05:00.123Z',
  source: 'alertmanager',
  owner: '',
  priority: 'P1',
  responders: [{ type: 'team', id: 'd1a9c2f0' }],
  integration: { id: 'i1', name: 'Lestrade', type: 'Webhook' },
  entity: 'checkout',
  description: '5xx ratio 12%',
  details: { runbook_url: 'https://runbooks.example.com/checkout', namespace: 'prod' },
  actions: [],
});
/** The path of the first issue when the schema refuses the value, else null. */
const refusal = (
  schema: { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } } },
  value: unknown,
) => {
  const r = schema.safeParse(value);
  return r.success ? null : r.error!.issues[0]!.path.join('.');
};

describe('OpsGenie alert answers', () => {
  it('accept a full alert, its details kept as sent, and a list of alerts with paging', () => {
    const a = GetAlertSchema.parse({ data: alert(), took: 0.01, requestId: 'r1' }).data;
    expect(a).toMatchObject({
      id: alert().id,
      tinyId: '1042',
      tags: ['payments', 'env:prod'],
      priority: 'P1',
      details: alert().details,
    });
    const list = ListAlertsSchema.parse({
      data: [alert(), { id: 'a2' }],
      paging: { next: 'https://api.opsgenie.com/v2/alerts?offset=2', first: 'x' },
      took: 0.1,
    });
    expect(list.data.map((x) => x.id)).toEqual([alert().id, 'a2']);
    expect(list.paging?.next).toMatch(/offset=2/);
    expect(ListAlertsSchema.parse({ data: [], paging: null }).paging).toBeNull();
  });

  it('take null for any optional field, as OpsGenie sends', () => {
    const nulls = Object.fromEntries(
      [
        'tinyId',
        'alias',
        'message',
        'status',
        'tags',
        'priority',
        'source',
        'owner',
        'createdAt',
        'updatedAt',
        'entity',
        'description',
        'details',
      ].map((k) => [k, null]),
    );
    expect(BaseAlertSchema.safeParse({ id: 'a1', ...nulls }).success).toBe(true);
  });

  it('need an alert id, naming the field', () => {
    expect(refusal(BaseAlertSchema, { ...alert(), id: '' })).toBe('id');
    expect(refusal(BaseAlertSchema, { message: 'm' })).toBe('id');
    expect(refusal(ListAlertsSchema, { data: [alert(), { id: '' }] })).toBe('data.1.id');
    expect(refusal(ListAlertsSchema, { paging: null })).toBe('data');
    expect(refusal(GetAlertSchema, {})).toBe('data');
  });

  it.each([
    ['message', 5],
    ['tags', 'payments'],
    ['tags', [1]],
    ['priority', 1],
    ['createdAt', 0],
    ['details', ['a']],
    ['details', 'text'],
    ['details', 5],
  ] as const)('refuse %s as %j, naming it', (field, value) => {
    expect(refusal(BaseAlertSchema, { ...alert(), [field]: value })).toMatch(new RegExp(`^${field}`));
  });

  it("check paging's next link is text", () => {
    expect(refusal(ListAlertsSchema, { data: [], paging: { next: 5 } })).toBe('paging.next');
    expect(refusal(ListNotesSchema, { data: [], paging: { next: 5 } })).toBe('paging.next');
  });
});

describe('OpsGenie note answers', () => {
  it('accept notes with their owner, time and offset, null where absent', () => {
    const notes = ListNotesSchema.parse({
      data: [
        { note: 'Looking', owner: 'alice@example.com', createdAt: '2024-06-10T15:00:00Z', offset: '1718031600000_1' },
        { note: null },
      ],
      paging: { next: null },
    });
    expect(notes.data[0]).toEqual({
      note: 'Looking',
      owner: 'alice@example.com',
      createdAt: '2024-06-10T15:00:00Z',
      offset: '1718031600000_1',
    });
    expect(refusal(AlertNoteSchema, { note: 5 })).toBe('note');
    expect(refusal(AlertNoteSchema, { offset: 5 })).toBe('offset');
    expect(refusal(ListNotesSchema, { data: 'x' })).toBe('data');
  });
});

describe('OpsGenie asynchronous requests', () => {
  it('read the request id of a 202 and need one', () => {
    expect(
      AcceptedSchema.parse({ result: 'Request will be processed', took: 0.2, requestId: '43a29c5c' }).requestId,
    ).toBe('43a29c5c');
    expect(refusal(AcceptedSchema, { result: 'x', requestId: '' })).toBe('requestId');
    expect(refusal(AcceptedSchema, { result: 'x' })).toBe('requestId');
    expect(refusal(AcceptedSchema, { requestId: 'r', result: 1 })).toBe('result');
  });

  it("read a request's status", () => {
    const s = RequestStatusSchema.parse({
      data: {
        success: true,
        action: 'AddNote',
        processedAt: '2024-06-10T15:00:01Z',
        integrationId: 'i',
        isSuccess: true,
        status: 'Added note',
        alertId: 'a1',
        alias: 'x',
      },
      took: 0.01,
      requestId: 'r',
    });
    expect(s.data).toMatchObject({ isSuccess: true, status: 'Added note', alertId: 'a1', action: 'AddNote' });
    expect(RequestStatusSchema.parse({ data: { isSuccess: null, status: null } }).data.isSuccess).toBeNull();
    expect(refusal(RequestStatusSchema, { data: { isSuccess: 'yes' } })).toBe('data.isSuccess');
    expect(refusal(RequestStatusSchema, { data: { status: 404 } })).toBe('data.status');
    expect(refusal(RequestStatusSchema, {})).toBe('data');
  });
});

describe('opsgenieReason', () => {
  it('says the message, then each field error', () => {
    expect(
      opsgenieReason({
        message: 'Request body is not processable.',
        took: 0,
        requestId: 'r',
        errors: { message: 'Message can not be empty.', priority: 'invalid' },
      }),
    ).toBe('Request body is not processable.; message: Message can not be empty.; priority: invalid');
    expect(opsgenieReason({ message: 'Key format is not valid!' })).toBe('Key format is not valid!');
    expect(opsgenieReason({ errors: { alias: 'too long' } })).toBe('alias: too long');
  });

  it('keeps the first 300 characters of a text body, and says nothing of other bodies', () => {
    expect(opsgenieReason('x'.repeat(301))).toBe('x'.repeat(300));
    expect(opsgenieReason('Bad gateway')).toBe('Bad gateway');
    for (const body of [null, undefined, 5, '', { message: 5 }, { errors: 'oops' }, { errors: null }])
      expect(opsgenieReason(body), JSON.stringify(body)).toBe('');
  });
});
