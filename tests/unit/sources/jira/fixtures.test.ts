import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { jiraFixture, type JiraFixture, type Json } from '../../../fixtures/jira/fixtures.js';
import { JIRA_V3_SPEC, loadSpec } from '../../../helpers/doubles/specs.js';

/**
 * The hand-built fixtures must match Atlassian's own schemas (the v3 spec subset), so what the
 * mapping and webhook tests feed in is what Jira can send.
 */
const spec = loadSpec(JIRA_V3_SPEC) as unknown as Json;
const ajv = new (Ajv as unknown as typeof Ajv.default)({ strict: false, allErrors: true });
// Jira's times ("…+0000") are not RFC 3339; formats are not what this checks.
for (const f of ['uri', 'int32', 'int64', 'date-time', 'date']) ajv.addFormat(f, true);
ajv.addSchema({ $id: 'jira', components: spec.components });
const schema = (name: string) => {
  const v = ajv.getSchema(`jira#/components/schemas/${name}`);
  if (!v) throw new Error(`no schema ${name}`);
  return v;
};

/** Jira sends null where the spec says "string, optional"; the spec's schemas do not say nullable. */
function withoutNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutNulls);
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => x !== null)
      .map(([k, x]) => [k, withoutNulls(x)]),
  );
}

function check(name: string, value: unknown): string[] {
  const validate = schema(name);
  return validate(withoutNulls(value))
    ? []
    : (validate.errors ?? []).map((e) => `${name}${e.instancePath} ${e.message}`);
}

function problems(doc: Json): string[] {
  const issue = (doc.issue ?? (doc.key ? doc : undefined)) as Json | undefined;
  const out: string[] = [];
  if (issue) {
    out.push(...check('IssueBean', issue));
    const f = issue.fields ?? {};
    if (f.status) out.push(...check('StatusDetails', f.status));
    for (const u of [f.reporter, f.creator].filter(Boolean)) out.push(...check('UserDetails', u));
    for (const c of f.comment?.comments ?? []) out.push(...check('Comment', c));
  }
  if (doc.comment) out.push(...check('Comment', doc.comment));
  if (doc.user) out.push(...check('UserDetails', doc.user));
  for (const item of doc.changelog?.items ?? []) out.push(...check('ChangeDetails', item));
  return out;
}

const ALL: JiraFixture[] = [
  'cloud-issue-created',
  'cloud-issue-updated-label-added',
  'cloud-issue-updated-summary',
  'cloud-issue-updated-resolved',
  'cloud-comment-created-command',
  'cloud-comment-created-command-adf',
  'cloud-comment-created-other',
  'cloud-comment-created-own',
  'cloud-api-issue',
  'dc-issue-created',
  'dc-comment-created-command',
  'dc-comment-created-own',
  'dc-api-issue',
];

describe('Jira fixtures against the v3 spec schemas', () => {
  it.each(ALL)('%s matches IssueBean / Comment / UserDetails / ChangeDetails', (name) => {
    expect(problems(jiraFixture(name))).toEqual([]);
  });

  it('the check itself catches a field the spec does not have', () => {
    const doc = jiraFixture('cloud-issue-updated-label-added');
    doc.changelog.items[0].fromLabels = 'x';
    doc.user.login = 'alice';
    expect(problems(doc)).toEqual([
      'UserDetails must NOT have additional properties',
      'ChangeDetails must NOT have additional properties',
    ]);
  });
});
