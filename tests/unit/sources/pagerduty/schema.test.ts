import { describe, expect, it } from 'vitest';
import {
  AlertPageSchema,
  AlertSchema,
  IncidentNoteDataSchema,
  IncidentPageSchema,
  IncidentSchema,
  NoteAnswerSchema,
  NotesSchema,
  WebhookEnvelopeSchema,
} from '../../../../sources/pagerduty/schema.js';
import { loadFixture } from '../../../fixtures/pagerduty/fixtures.js';

const triggered = () => loadFixture('v3-incident-triggered.json');
const incident = () => triggered().event.data as Record<string, unknown>;
const refusal = (
  schema: { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } } },
  value: unknown,
) => {
  const r = schema.safeParse(value);
  return r.success ? null : r.error!.issues[0]!.path.join('.');
};

describe('PagerDuty V3 webhook events, on the documented examples', () => {
  it('read the envelope and the incident it carries', () => {
    const e = WebhookEnvelopeSchema.parse(triggered()).event;
    expect(e).toMatchObject({
      id: '5ac64822-4adc-4fda-ade0-410becf0de4f',
      event_type: 'incident.triggered',
      resource_type: 'incident',
      agent: { id: 'PLH1HKV', type: 'user_reference' },
    });
    expect(IncidentSchema.parse(e.data)).toMatchObject({
      id: 'PGR0VU2',
      number: 2,
      title: 'A little bump in the road',
      status: 'triggered',
      urgency: 'high',
      created_at: '2020-04-09T15:16:27Z',
      priority: { id: 'PSO75BM', summary: 'P1' },
      service: { id: 'PF9KMXH', summary: 'API Service' },
      incident_key: 'd3640fbd41094207a1c11e58e46b1662',
    });
  });

  it("read an annotated incident's note, its content empty when absent", () => {
    const data = IncidentNoteDataSchema.parse(loadFixture('v3-incident-annotated.json').event.data);
    expect(data).toMatchObject({
      incident: { id: 'PGR0VU2' },
      id: 'P2LA89X',
      content: 'I sure am glad we are using PagerDuty!',
      trimmed: false,
    });
    expect(IncidentNoteDataSchema.parse({ incident: { id: 'P1' } }).content).toBe('');
    expect(refusal(IncidentNoteDataSchema, { incident: { summary: 'x' } })).toBe('incident.id');
    expect(refusal(IncidentNoteDataSchema, { incident: { id: 'P1' }, trimmed: 'no' })).toBe('trimmed');
  });

  it('need an event type, and allow an agent of null', () => {
    expect(refusal(WebhookEnvelopeSchema, { event: { ...triggered().event, event_type: '' } })).toBe(
      'event.event_type',
    );
    expect(refusal(WebhookEnvelopeSchema, { event: { data: {} } })).toBe('event.event_type');
    expect(refusal(WebhookEnvelopeSchema, {})).toBe('event');
    expect(WebhookEnvelopeSchema.safeParse({ event: { ...triggered().event, agent: null } }).success).toBe(true);
    expect(refusal(WebhookEnvelopeSchema, { event: { ...triggered().event, agent: { id: 5 } } })).toBe(
      'event.agent.id',
    );
  });
});

describe('PagerDuty incidents', () => {
  it('need an id, a status and a creation time, naming the field', () => {
    expect(refusal(IncidentSchema, { ...incident(), id: '' })).toBe('id');
    for (const field of ['id', 'status', 'created_at']) {
      const { [field]: _gone, ...rest } = incident();
      expect(refusal(IncidentSchema, rest), field).toBe(field);
    }
  });

  it('take a missing title as empty, and null for optional references', () => {
    const { title: _t, ...rest } = incident();
    expect(IncidentSchema.parse(rest).title).toBe('');
    expect(
      IncidentSchema.safeParse({
        ...incident(),
        priority: null,
        service: null,
        urgency: null,
        html_url: null,
        incident_key: null,
      }).success,
    ).toBe(true);
  });

  it.each([
    ['number', 2.5],
    ['incident_number', '2'],
    ['priority', { summary: 'P1' }],
    ['service', 'PF9KMXH'],
    ['urgency', 1],
    ['title', 5],
  ] as const)('refuse %s as %j', (field, value) => {
    expect(refusal(IncidentSchema, { ...incident(), [field]: value })).toMatch(new RegExp(`^${field}`));
  });

  it('come in pages that say whether more follow', () => {
    const page = IncidentPageSchema.parse({ incidents: [incident()], limit: 25, offset: 0, more: true, total: null });
    expect([page.incidents[0]!.id, page.more, page.limit, page.offset]).toEqual(['PGR0VU2', true, 25, 0]);
    expect(refusal(IncidentPageSchema, { incidents: [], more: 'yes' })).toBe('more');
    expect(refusal(IncidentPageSchema, { incidents: [], offset: 0.5 })).toBe('offset');
    expect(refusal(IncidentPageSchema, { more: false })).toBe('incidents');
  });
});

describe('PagerDuty alerts and notes', () => {
  it("read an alert's key, severity and body details", () => {
    const a = AlertSchema.parse({
      id: 'PALERT1',
      type: 'alert',
      summary: 'High latency',
      status: 'triggered',
      severity: 'critical',
      alert_key: 'k',
      created_at: '2020-04-09T15:16:27Z',
      body: { details: { a: 1 }, contexts: [] },
    });
    expect(a).toMatchObject({ id: 'PALERT1', severity: 'critical', alert_key: 'k', body: { details: { a: 1 } } });
    expect(AlertSchema.safeParse({ id: 'P', body: null, summary: null }).success).toBe(true);
    expect(refusal(AlertSchema, { summary: 'x' })).toBe('id');
    expect(refusal(AlertSchema, { id: 'P', body: 'text' })).toBe('body');
    expect(refusal(AlertPageSchema, { alerts: [{ id: 'P' }, { id: 1 }], more: false })).toBe('alerts.1.id');
  });

  it('read notes with their author, and the note just added', () => {
    const note = {
      id: 'PWL7QXS',
      user: { id: 'PXPGF42', type: 'user_reference', summary: 'Earline Greenholt' },
      content: 'Firefighters are on the scene.',
      created_at: '2016-01-04T10:55:06-05:00',
    };
    expect(NotesSchema.parse({ notes: [note] }).notes[0]).toMatchObject({
      id: 'PWL7QXS',
      user: { summary: 'Earline Greenholt' },
    });
    expect(NoteAnswerSchema.parse({ note }).note.content).toBe('Firefighters are on the scene.');
    expect(refusal(NotesSchema, { notes: [{ id: 'n' }] })).toBe('notes.0.content');
    expect(refusal(NoteAnswerSchema, { note: { content: 'x' } })).toBe('note.id');
  });
});
