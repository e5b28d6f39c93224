import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Issue } from '../../src/issue.js';
import { toIssue, type Trigger } from '../../sources/github/map.js';
import { markerComment } from '../../sources/github/marker.js';
import {
  IssueCommentEventSchema,
  IssuesEventSchema,
  type IssueCommentEvent,
  type IssuesEvent,
} from '../../sources/github/schema.js';
import { BOT, seededDouble } from '../fixtures/github/double-setup.js';
import {
  commentCreated,
  EXAMPLE_REPO,
  example,
  issuesClosed,
  issuesLabeled,
  issuesOpened,
} from '../fixtures/github/payloads.js';
import type { GithubDouble } from '../helpers/doubles/github-double.js';
import { SPECS_DIR } from '../helpers/doubles/specs.js';
import { oddString } from './arbitraries.js';
import type { Forgery, KnownDefect, WebhookEndpoint } from './webhook-endpoints.js';

/**
 * GitHub (`/webhooks/github`) for the fuzz table: deliveries signed as GitHub signs them
 * (X-Hub-Signature-256 over the raw body, X-GitHub-Event, a fresh X-GitHub-Delivery), the service
 * pointed at the GitHub double (the handler asks it for the labeller's permission, our login and
 * recent comments), real payloads from @octokit/webhooks-examples, and GitHub's own webhook
 * schemas (webhooks-issues-subset.json, from @octokit/openapi-webhooks) as what a real sender sends.
 */
const SECRET = 'fuzz-github-webhook-secret-8d0b41';
/** A second secret, as while rotating: deliveries signed with it pass too. */
const PREVIOUS_SECRET = 'fuzz-github-previous-secret-27c9';
/** Has write on the example repository in the double; the examples' own sender (its owner) is admin. */
const WRITER = 'writer';
/** Has read only: may not start investigations. */
const READER = 'reader';
const { owner: OWNER, name: REPO, fullName: FULL_NAME } = EXAMPLE_REPO;

let gh: GithubDouble | undefined;
let allFixtures: unknown[] | undefined;
const double = (): GithubDouble => {
  if (!gh) throw new Error('github endpoint: setup() has not run');
  return gh;
};

type Json = Record<string, any>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The event a payload is delivered as: issue_comment when it carries a comment, else issues. */
function eventOf(doc: unknown): 'issues' | 'issue_comment' {
  return isObject(doc) && Object.hasOwn(doc, 'comment') ? 'issue_comment' : 'issues';
}
function eventOfText(text: string): 'issues' | 'issue_comment' {
  try {
    return eventOf(JSON.parse(text));
  } catch {
    return 'issues';
  }
}

const hmac = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');

function headers(body: string, o: { deliveryId?: string; signature?: string | null } = {}): Record<string, string> {
  const signature = o.signature === undefined ? `sha256=${hmac(SECRET, body)}` : o.signature;
  return {
    'content-type': 'application/json',
    'user-agent': 'GitHub-Hookshot/fuzz',
    'x-github-event': eventOfText(body),
    'x-github-delivery': o.deliveryId ?? randomUUID(),
    ...(signature === null ? {} : { 'x-hub-signature-256': signature }),
  };
}

// GitHub's webhook schemas, one per event and action (webhook-issues-labeled, webhook-issue-comment-created, ...).
const spec = JSON.parse(readFileSync(`${SPECS_DIR}github/webhooks-issues-subset.json`, 'utf8')) as {
  components: { schemas: Record<string, unknown> };
};
const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({
  strict: false,
  allErrors: false,
  validateFormats: false,
  strictNumbers: true,
});
ajv.addSchema({ $id: 'webhooks', components: spec.components });

function vendorAccepts(doc: unknown): boolean {
  if (!isObject(doc) || typeof doc.action !== 'string') return false;
  const name = `${eventOf(doc) === 'issues' ? 'webhook-issues' : 'webhook-issue-comment'}-${doc.action}`;
  if (!Object.hasOwn(spec.components.schemas, name)) return false;
  const validate = ajv.getSchema(`webhooks#/components/schemas/${name}`);
  const declared = (spec.components.schemas[name] as { properties?: Record<string, unknown> }).properties ?? {};
  // What the schemas leave unsaid: GitHub sends no top-level key the event's schema does not
  // declare (no `label` on issues.opened), a repository's full_name is "owner/name", and its
  // numbers and ids are safe integers (the schemas' "integer" has no bound; JSON text can say -2**53).
  const ints = [doc.issue?.number, doc.issue?.comments, doc.comment?.id].filter((n) => n !== undefined);
  return (
    Boolean(validate?.(doc)) &&
    Object.keys(doc).every((k) => Object.hasOwn(declared, k)) &&
    /^[^/]+\/[^/]+$/.test(String(doc.repository?.full_name)) &&
    ints.every((n) => Number.isSafeInteger(n))
  );
}

function sourceAccepts(doc: unknown): boolean {
  return (eventOf(doc) === 'issues' ? IssuesEventSchema : IssueCommentEventSchema).safeParse(doc).success;
}

/**
 * Real deliveries: every issues and issue_comment example, made private (as in the double, so they
 * get past the public-repository gate to the API calls), three as GitHub sent them (public), and
 * the adapted triggers of tests/fixtures/github.
 */
function fixtures(): unknown[] {
  const examples = (event: string) =>
    Array.from({ length: 40 }, (_, i) => {
      try {
        return example(event, undefined, i);
      } catch {
        return undefined;
      }
    }).filter((e): e is Json => e !== undefined);
  const all = [...examples('issues'), ...examples('issue_comment')];
  const asPrivate = all.map((e) => ({ ...e, repository: { ...e.repository, private: true, visibility: 'private' } }));
  const triggers = [
    issuesLabeled({ sender: WRITER }),
    issuesLabeled({ sender: WRITER, label: 'LESTRADE' }),
    issuesLabeled(),
    issuesOpened({ sender: WRITER }),
    issuesOpened({ labels: ['bug', 'lestrade', 'sev1'] }),
    commentCreated({ login: WRITER, association: 'COLLABORATOR' }),
    commentCreated({ login: WRITER, association: 'MEMBER', body: '/lestrade investigate please, it is on fire' }),
    // Labelled by someone without write access: the permission check says no.
    issuesLabeled({ sender: READER }),
    issuesOpened({ sender: 'mallory' }),
  ];
  return [
    ...asPrivate,
    example('issues', 'labeled'),
    example('issues', 'opened'),
    example('issue_comment', 'created', 1),
    issuesClosed(),
    commentCreated({ login: 'mallory', association: 'NONE' }),
    // Our own comments, by our login or carrying our marker: ignored, whoever is named.
    commentCreated({ login: BOT, association: 'COLLABORATOR' }),
    commentCreated({
      login: WRITER,
      association: 'OWNER',
      body: `/lestrade investigate\n\n${markerComment({ key: 'Codertocat/Hello-World#1', ref: {} })}`,
    }),
    // The triggers get furthest (permission, comments, intake): weighed as much as all the examples together.
    ...Array.from({ length: Math.ceil(all.length / triggers.length) }, () => triggers).flat(),
  ];
}

/** The trigger label as people type it. */
const triggerLabel = fc.constantFrom('lestrade', 'Lestrade', 'LESTRADE');
const issueText = fc.record({
  title: oddString,
  body: fc.oneof(oddString, fc.constant(null)),
  labels: fc.array(oddString, { maxLength: 5 }),
});

/** Valid trigger deliveries with odd strings in the issue's title, body and labels (and the command comment's tail). */
const valid: fc.Arbitrary<unknown> = fc.oneof(
  fc.tuple(issueText, triggerLabel).map(([t, label]) => {
    const p = issuesLabeled({ sender: WRITER, label, issueLabels: t.labels });
    return { ...p, issue: { ...p.issue, title: t.title, body: t.body } };
  }),
  fc.tuple(issueText, triggerLabel).map(([t, label]) => {
    const p = issuesOpened({ sender: WRITER, labels: [...t.labels, label] });
    return { ...p, issue: { ...p.issue, title: t.title, body: t.body } };
  }),
  fc
    .tuple(
      issueText,
      fc.constantFrom(' ', '\n', '\t', '\r\n'),
      oddString,
      fc.constantFrom('OWNER', 'MEMBER', 'COLLABORATOR'),
    )
    .map(([t, ws, tail, association]) => {
      const p = commentCreated({ login: WRITER, association, body: `/lestrade investigate${ws}${tail}` });
      const labels = t.labels.map((name) => ({ ...p.issue.labels?.[0], name }));
      return { ...p, issue: { ...p.issue, title: t.title, body: t.body, labels, comments: 0 } };
    }),
);

/** Fresh issue numbers and comment ids, and the issue created in the double, so the API calls find it. */
function freshen(body: unknown, nextId: () => string): unknown {
  if (!isObject(body)) return body;
  const fresh = () => Number.parseInt(nextId().slice(-8), 16) + 1_000;
  const issue = body.issue;
  if (isObject(issue) && Number.isSafeInteger(issue.number)) {
    issue.number = fresh();
    const repo = isObject(body.repository) ? String(body.repository.full_name) : '';
    if (repo.toLowerCase() === FULL_NAME.toLowerCase()) {
      double().addIssue({
        owner: OWNER,
        repo: REPO,
        number: issue.number,
        title: typeof issue.title === 'string' ? issue.title : 'fuzz',
      });
    }
  }
  if (isObject(body.comment) && Number.isSafeInteger(body.comment.id)) body.comment.id = fresh();
  return body;
}

function expectedOpenIssues(body: unknown): Issue[] {
  let e: IssuesEvent | IssueCommentEvent;
  let trigger: Trigger;
  if (eventOf(body) === 'issues') {
    e = IssuesEventSchema.parse(body);
    trigger = { kind: 'label' };
  } else {
    const c = IssueCommentEventSchema.parse(body);
    e = c;
    trigger = { kind: 'comment', comment: c.comment };
  }
  if (e.issue.state === 'closed') return [];
  return [
    toIssue(e.issue, {
      repo: e.repository.full_name,
      instance: new URL(double().url).host,
      trigger,
      comments: [],
      botLogin: BOT,
    }),
  ];
}

/** Forged authentication: no signature, another secret, another body's, the old SHA-1 header only, or garbage. */
const forgeries: fc.Arbitrary<Forgery> = fc.oneof(
  fc.constant({ kind: 'missing' }),
  fc
    .string({ minLength: 1, maxLength: 40 })
    .filter((s) => s !== SECRET && s !== PREVIOUS_SECRET)
    .map((value) => ({ kind: 'wrong-secret', value })),
  fc.string({ minLength: 1, maxLength: 10 }).map((value) => ({ kind: 'other-body', value })),
  fc.constant({ kind: 'sha1-only' }),
  fc.constant({ kind: 'one-digit-off' }),
  fc.stringMatching(/^[\x20-\x7e]{0,80}$/).map((value) => ({ kind: 'garbage', value })),
);

function forge(body: string, f: Forgery, deliveryId?: string): Record<string, string> {
  const good = hmac(SECRET, body);
  const signature = {
    missing: null,
    'wrong-secret': `sha256=${hmac(f.value ?? '', body)}`,
    'other-body': `sha256=${hmac(SECRET, body + (f.value ?? ' '))}`,
    'sha1-only': null,
    'one-digit-off': `sha256=${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`,
    garbage: f.value ?? '',
  }[f.kind];
  const h = headers(body, { deliveryId, signature: signature === undefined ? null : signature });
  if (f.kind === 'sha1-only') h['x-hub-signature'] = `sha1=${createHmac('sha1', SECRET).update(body).digest('hex')}`;
  if (f.kind === 'garbage' && f.value === '') delete h['x-hub-signature-256'];
  return h;
}

/** Pages of 100 the handler may read for MAX_UNTRUSTED_COMMENTS (10) recent comments: the last one, and the one before if it is short. */
const MAX_COMMENT_PAGES = 2;

const regressions: Array<Omit<KnownDefect, 'hits'>> = [
  {
    title:
      'GitHub: a correctly signed body that is a JSON primitive (null, 1, "x", true), or whose action cannot be made a string, ' +
      "is 400, not 401 (only octokit's signature-mismatch error means a bad signature)",
    async demonstrate(t) {
      for (const text of ['null', '1', '"x"', 'true', '{"action":{"toString":1}}']) {
        const r = await t.deliver(text);
        expect(r.status, `${text}: ${JSON.stringify(r.body)}`).toBe(400);
      }
    },
  },
  {
    title:
      "GitHub: a delivery without issue.state (real issues.pinned / issues.unpinned have none; GitHub's schema never requires it) is accepted",
    async demonstrate(t) {
      const pinned = freshen(example('issues', 'pinned'), () => randomUUID().replace(/-/g, '').slice(0, 16));
      expect(vendorAccepts(pinned)).toBe(true);
      const r = await t.deliver(JSON.stringify(pinned));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    },
  },
  {
    title:
      'GitHub: a signed trigger whose sender.login holds a lone surrogate (no URL can name it) is not 5xx and starts nothing',
    async demonstrate(t) {
      const p = issuesLabeled({ sender: WRITER });
      const payload = freshen({ ...p, sender: { ...p.sender, login: '\ud800' } }, () =>
        randomUUID().replace(/-/g, '').slice(0, 16),
      );
      const r = await t.deliver(JSON.stringify(payload));
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
      expect(r.createdNow).toBe(0);
    },
  },
  {
    title: 'GitHub: however many comments the delivery claims the issue has, a trigger reads at most two pages of them',
    async demonstrate(t) {
      const p = issuesLabeled({ sender: WRITER });
      const payload = freshen(p, () => randomUUID().replace(/-/g, '').slice(0, 16)) as Json;
      payload.issue.comments = 5_000;
      const before = double().requests.filter((r) => r.operationId === 'issues/list-comments').length;
      const r = await t.deliver(JSON.stringify(payload));
      expect(r.status).toBe(200);
      const pages = double().requests.filter((r) => r.operationId === 'issues/list-comments').length - before;
      expect(pages, 'GET .../comments requests for one delivery').toBeLessThanOrEqual(MAX_COMMENT_PAGES);
    },
  },
];

export const github: WebhookEndpoint = {
  name: 'github',
  path: '/webhooks/github',
  env: {},
  async setup() {
    gh = await seededDouble();
    gh.setPermission(OWNER, REPO, WRITER, 'write');
    gh.setPermission(OWNER, REPO, READER, 'read');
    return {
      env: { GITHUB_TOKEN: gh.token, GITHUB_API_URL: gh.url, GITHUB_WEBHOOK_SECRET: `${SECRET},${PREVIOUS_SECRET}` },
    };
  },
  async teardown() {
    await gh?.close();
    gh = undefined;
  },
  sign: (body, o = {}) => headers(body, { deliveryId: o.deliveryId }),
  deliveryIdHeader: 'x-github-delivery',
  forgeries,
  forge,
  get fixtures() {
    return (allFixtures ??= fixtures());
  },
  hotPaths: [
    ['action'],
    ['sender', 'login'],
    ['repository', 'full_name'],
    ['repository', 'private'],
    ['issue', 'number'],
    ['issue', 'title'],
    ['issue', 'body'],
    ['issue', 'state'],
    ['issue', 'comments'],
    ['issue', 'labels'],
    ['issue', 'labels', 0, 'name'],
    ['issue', 'user'],
    ['issue', 'pull_request'],
    ['issue', 'created_at'],
    ['label'],
    ['label', 'name'],
    ['comment', 'body'],
    ['comment', 'id'],
    ['comment', 'user', 'login'],
    ['comment', 'author_association'],
  ],
  valid,
  freshen,
  specAccepts: vendorAccepts,
  sourceAccepts,
  expectedOpenIssues,
  exactText(body) {
    const e = body as Json;
    // A label named "repository" gives way to the fixed key of that name (sources/github/map.ts toIssue).
    const labels = (e.issue.labels as Json[]).map((l) => l.name as string).filter((n) => n && n !== 'repository');
    return { title: e.issue.title, description: e.issue.body ?? '', labels };
  },
  report() {
    const seen = new Map<string, number>();
    for (const v of double().violations) {
      const k = `${v.method} ${v.operationId ?? v.path.replace(/\/\d+/g, '/N')}: ${v.errors.join('; ').replace(/\d+/g, 'N').slice(0, 120)}`;
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    return [...seen].map(([k, n]) => `${n} × ${k}`);
  },
  regressions,
  // Each trigger asks the double for a permission (twice per run in (b), for the repeat): fewer runs.
  runs: { mutations: 250, valid: 60 },
};
