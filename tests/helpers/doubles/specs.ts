import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Document } from 'openapi-backend';

/**
 * The vendor specs the doubles validate against live in the repository, tests/fixtures/specs (its
 * README names each file's public source and version): a clone with nothing beside it runs the suite.
 */
const SPECS_URL = new URL('../../fixtures/specs/', import.meta.url);
export const SPECS_DIR = fileURLToPath(SPECS_URL);

export const GITHUB_SPEC = 'github/github-issues-subset.json';
export const JIRA_V3_SPEC = 'jira/jira-v3-subset.json';

export function loadSpec(relative: string): Document {
  const raw = readFileSync(new URL(relative, SPECS_URL), 'utf8');
  return rewriteUntypedNullable(JSON.parse(raw)) as Document;
}

/**
 * AJV refuses `nullable: true` on a schema without `type` (the GitHub subset has one:
 * issue-field-value.value). Rewrite such schemas as anyOf [schema, null], which means the same.
 */
export function rewriteUntypedNullable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteUntypedNullable);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = rewriteUntypedNullable(v);
  if (out.nullable === true && out.type === undefined && out.$ref === undefined) {
    delete out.nullable;
    return { anyOf: [out, { type: 'null' }] };
  }
  // A nullable enum must list null to accept it (OpenAPI 3.0.3); GitHub's spec leaves it out
  // (issue.state_reason is null on open issues), so add it.
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}
