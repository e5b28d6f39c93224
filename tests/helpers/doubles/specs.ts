import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Document } from 'openapi-backend';

/**
 * The vendor specs live in shared/specs beside the repository (CI clones the repo elsewhere with a
 * copy of shared/ next to it), so resolve from this file up to the repo root's parent, unless
 * SHARED_SPECS_DIR names the folder: stryker.config.mjs does, since its sandbox sits deeper.
 */
const SPECS_URL = process.env.SHARED_SPECS_DIR
  ? pathToFileURL(`${resolve(process.env.SHARED_SPECS_DIR)}/`)
  : new URL('../../../../shared/specs/', import.meta.url);
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
