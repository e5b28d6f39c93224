import { createHmac, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Issue } from '../../src/issue.js';
import { issueFromBean } from '../../sources/jira/map-issue.js';
import { CommentEventSchema, DeliveryHeadSchema, IssueEventSchema } from '../../sources/jira/webhook-schema.js';
import { jiraFixture, type JiraFixture } from '../fixtures/jira/fixtures.js';
import { startJiraDouble, type JiraDouble } from '../helpers/doubles/jira-double.js';
import { oddString } from './arbitraries.js';
import type { Forgery, WebhookEndpoint } from './webhook-endpoints.js';

/**
 * Jira (`/webhooks/jira`) for the fuzz table: deliveries signed as Jira signs them
 * (`X-Hub-Signature: sha256=<hmac>` over the raw body, a fresh X-Atlassian-Webhook-Identifier), the
 * service pointed at the Jira Cloud double (a command comment makes it read GET /myself and the
 * issue), the hand-built fixtures of tests/fixtures/jira, and the source's own schemas
 * (webhook-schema.ts, written from Atlassian's spec) as what a sender can send: Atlassian publishes
 * no schema of the webhook envelope. Triggers: new issues in project OPS, the label "lestrade"
 * added, a comment starting with "/lestrade investigate".
 */
const SECRET = 'fuzz-jira-webhook-secret-3a77e0';
const PREVIOUS_SECRET = 'fuzz-jira-previous-secret-91f2';
/** Also configured: while a secret is set, the shared token must not be accepted instead of a signature. */
const TOKEN = 'fuzz-jira-shared-token-55c1';

/** The account of every fixture's actor (user, comment author). */
const ALICE = '712020:4f6e8d0c-9f7e-4c3b-a1d2-3b4c5d6e7f80';

let jira: JiraDouble | undefined;
const double = (): JiraDouble => {
  if (!jira) throw new Error('jira endpoint: setup() has not run');
  return jira;
};

type Json = Record<string, any>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const hmac = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

function headers(body: string, o: { deliveryId?: string; signature?: string | null } = {}): Record<string, string> {
  const signature = o.signature === undefined ? `sha256=${hmac(SECRET, body)}` : o.signature;
  return {
    'content-type': 'application/json; charset=utf-8',
    'user-agent': 'Atlassian Webhook HTTP Client',
    'x-atlassian-webhook-identifier': o.deliveryId ?? randomUUID(),
    ...(signature === null ? {} : { 'x-hub-signature': signature }),
  };
}

function sourceAccepts(doc: unknown): boolean {
  const head = DeliveryHeadSchema.safeParse(doc);
  if (!head.success) return false;
  const event = head.data.webhookEvent;
  if (event === 'jira:issue_created' || event === 'jira:issue_updated') return IssueEventSchema.safeParse(doc).success;
  if (event === 'comment_created') return CommentEventSchema.safeParse(doc).success;
  return true;
}

const WEBHOOK_FIXTURES: JiraFixture[] = [
  'cloud-issue-created',
  'cloud-issue-updated-label-added',
  'cloud-issue-updated-summary',
  'cloud-issue-updated-resolved',
  'cloud-comment-created-command',
  'cloud-comment-created-command-adf',
  'cloud-comment-created-other',
  'cloud-comment-created-own',
  'cloud-worklog-updated',
  'dc-issue-created',
  'dc-comment-created-command',
  'dc-comment-created-own',
];

/** ADF as Cloud writes rich text, with odd text and attributes, and nodes of any type. */
const adfNode: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record(
      {
        type: fc.constant('text'),
        text: oddString,
        marks: fc.array(
          fc.record({ type: fc.constantFrom('link', 'code', 'strong'), attrs: fc.record({ href: oddString }) }),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: ['type', 'text'] },
    ),
    fc.record({
      type: fc.constantFrom('mention', 'emoji', 'status', 'inlineCard', 'hardBreak', 'rule'),
      attrs: fc.record({ text: oddString, shortName: oddString, url: oddString }, { requiredKeys: [] }),
    }),
    fc.record(
      {
        type: fc.oneof(
          fc.constantFrom(
            'doc',
            'paragraph',
            'heading',
            'codeBlock',
            'blockquote',
            'bulletList',
            'orderedList',
            'listItem',
            'table',
            'tableRow',
            'tableCell',
            'panel',
          ),
          oddString,
        ),
        attrs: fc.record({ order: fc.oneof(fc.integer(), fc.double(), oddString) }, { requiredKeys: [] }),
        content: fc.array(tie('node'), { maxLength: 4 }),
      },
      { requiredKeys: ['type'] },
    ),
  ),
})).node;

/** Deeper than the renderer goes (100), built without recursion (and shallow enough for fast-check to print). */
const deepAdf = fc
  .tuple(fc.integer({ min: 90, max: 400 }), fc.constantFrom('blockquote', 'bulletList', 'paragraph', 'listItem'))
  .map(([depth, type]) => {
    let node: unknown = { type: 'text', text: 'bottom' };
    for (let i = 0; i < depth; i++) node = { type, content: [node, { type: 'text', text: `${i}\n` }] };
    return { type: 'doc', version: 1, content: [node] };
  });
const adfDoc = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(adfNode, { maxLength: 4 }).map((content) => ({ type: 'doc', version: 1, content })),
  },
  { weight: 1, arbitrary: deepAdf },
);

/** Valid triggers (a new OPS issue, the label added) with odd strings in summary, description and labels. */
const valid: fc.Arbitrary<unknown> = fc
  .record({
    kind: fc.constantFrom('cloud-issue-created', 'dc-issue-created', 'cloud-issue-updated-label-added'),
    summary: fc.oneof({ weight: 9, arbitrary: oddString }, { weight: 1, arbitrary: fc.constant(null) }),
    description: fc.oneof(
      { weight: 6, arbitrary: oddString },
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 3, arbitrary: adfDoc },
    ),
    labels: fc.array(oddString, { maxLength: 5 }),
  })
  .map(({ kind, summary, description, labels }) => {
    const doc = jiraFixture(kind);
    // issue_created needs no label; the label-added update carries it in the changelog, whatever fields.labels says.
    Object.assign(doc.issue.fields, { summary, description, labels });
    return doc;
  });

/** A fresh issue key for issue events; a fresh comment id for comment events (on OPS-7, which the double has). */
function freshen(body: unknown, nextId: () => string): unknown {
  if (!isObject(body)) return body;
  const fresh = () => String(Number.parseInt(nextId().slice(-8), 16) + 20_000);
  if (isObject(body.comment) && (typeof body.comment.id === 'string' || Number.isSafeInteger(body.comment.id))) {
    body.comment.id = fresh();
  } else if (isObject(body.issue) && typeof body.issue.key === 'string') {
    const m = /^([A-Za-z][A-Za-z0-9_]*)-\d+$/.exec(body.issue.key);
    if (m) body.issue.key = `${m[1]}-${fresh()}`;
  }
  return body;
}

function expectedOpenIssues(body: unknown): Issue[] {
  const ev = IssueEventSchema.parse(body);
  return [issueFromBean(ev.issue, { site: double().url })];
}

/** Forged authentication: none, another secret's, another body's, SHA-1, one digit off, garbage, or the shared token instead. */
const forgeries: fc.Arbitrary<Forgery> = fc.oneof(
  fc.constant({ kind: 'missing' }),
  fc
    .string({ minLength: 1, maxLength: 40 })
    .filter((s) => s !== SECRET && s !== PREVIOUS_SECRET)
    .map((value) => ({ kind: 'wrong-secret', value })),
  fc.string({ minLength: 1, maxLength: 10 }).map((value) => ({ kind: 'other-body', value })),
  fc.constant({ kind: 'sha1' }),
  fc.constant({ kind: 'one-digit-off' }),
  fc.stringMatching(/^[\x20-\x7e]{1,80}$/).map((value) => ({ kind: 'garbage', value })),
  fc.constant({ kind: 'token-header' }),
  fc.constant({ kind: 'token-basic-auth' }),
);

function forge(body: string, f: Forgery, deliveryId?: string): Record<string, string> {
  const good = hmac(SECRET, body);
  const signature: string | null =
    {
      missing: null,
      'wrong-secret': `sha256=${hmac(f.value ?? '', body)}`,
      'other-body': `sha256=${hmac(SECRET, body + (f.value ?? ' '))}`,
      sha1: `sha1=${createHmac('sha1', SECRET).update(body).digest('hex')}`,
      'one-digit-off': `sha256=${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`,
      garbage: f.value ?? '',
      'token-header': null,
      'token-basic-auth': null,
    }[f.kind] ?? null;
  const h = headers(body, { deliveryId, signature });
  if (f.kind === 'token-header') h['x-lestrade-token'] = TOKEN;
  if (f.kind === 'token-basic-auth') h.authorization = `Basic ${Buffer.from(`jira:${TOKEN}`).toString('base64')}`;
  return h;
}

export const jiraEndpoint: WebhookEndpoint = {
  name: 'jira',
  path: '/webhooks/jira',
  env: {},
  async setup() {
    jira = await startJiraDouble({ deployment: 'cloud' });
    jira.addIssue({ key: 'OPS-7', summary: 'Checkout API returns 502', priority: 'High', labels: ['checkout'] });
    // The label and the command count only from trusted people (issue 16): the fixtures' author, Alice, is in sre.
    jira.state.setGroups(ALICE, ['jira-users', 'sre']);
    return {
      env: {
        JIRA_URL: jira.url,
        JIRA_DEPLOYMENT: 'cloud',
        JIRA_EMAIL: 'lestrade@example.com',
        JIRA_API_TOKEN: 'test-api-token',
        JIRA_WEBHOOK_SECRET: `${PREVIOUS_SECRET},${SECRET}`,
        JIRA_WEBHOOK_TOKEN: TOKEN,
      },
      config: { triggers: { projects: ['OPS'] }, trusted: { groups: ['sre'] } },
    };
  },
  async teardown() {
    await jira?.close();
    jira = undefined;
  },
  sign: (body, o = {}) => headers(body, { deliveryId: o.deliveryId }),
  deliveryIdHeader: 'x-atlassian-webhook-identifier',
  forgeries,
  forge,
  get fixtures() {
    return WEBHOOK_FIXTURES.map(jiraFixture);
  },
  hotPaths: [
    ['webhookEvent'],
    ['issue'],
    ['issue', 'key'],
    ['issue', 'id'],
    ['issue', 'fields'],
    ['issue', 'fields', 'summary'],
    ['issue', 'fields', 'description'],
    ['issue', 'fields', 'labels'],
    ['issue', 'fields', 'labels', 0],
    ['issue', 'fields', 'project'],
    ['issue', 'fields', 'project', 'key'],
    ['issue', 'fields', 'created'],
    ['issue', 'fields', 'priority'],
    ['issue', 'fields', 'status'],
    ['issue', 'fields', 'resolution'],
    ['issue', 'fields', 'comment'],
    ['issue', 'fields', 'reporter'],
    ['issue', 'fields', 'components'],
    ['changelog'],
    ['changelog', 'items', 0, 'toString'],
    ['changelog', 'items', 0, 'fromString'],
    ['changelog', 'items', 0, 'field'],
    ['comment', 'body'],
    ['comment', 'id'],
    ['comment', 'author'],
    ['comment', 'author', 'accountId'],
    ['timestamp'],
  ],
  hotValues: adfDoc,
  valid,
  freshen,
  specAccepts: sourceAccepts,
  sourceAccepts,
  expectedOpenIssues,
  exactText(body) {
    const f = (body as Json).issue.fields;
    // The fixed keys (project, issuetype, status, priority) win over labels of the same name (map-issue.ts labelsOf).
    const fixed = new Set(['project', 'issuetype', 'status', 'priority']);
    return {
      title: f.summary ?? '',
      ...(typeof f.description === 'string' || f.description === null ? { description: f.description ?? '' } : {}),
      labels: (f.labels as string[]).filter((l) => !fixed.has(l)),
    };
  },
  report() {
    const seen = new Map<string, number>();
    for (const v of double().violations) {
      const k = `${v.method} ${v.operationId ?? v.path.replace(/\/\d+/g, '/N')}: ${v.errors.join('; ').replace(/\d+/g, 'N').slice(0, 120)}`;
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    return [...seen].map(([k, n]) => `${n} × ${k}`);
  },
};
