import type { Document } from 'openapi-backend';

type Json = Record<string, unknown>;

/**
 * Data Center serves /rest/api/2 and no v2 spec is at hand, so v2 requests are validated against the
 * matching v3 operation of Atlassian's Cloud spec, with two changes: the paths move from /rest/api/3 to
 * /rest/api/2 (dropping /search/jql, which Data Center does not have), and a comment's `body` is a
 * string (wiki markup) instead of an ADF document. /rest/api/2/search is added separately (see jira-search.ts).
 */
export function dataCenterSpec(v3: Document): Document {
  const spec = structuredClone(v3) as unknown as { paths: Json; components: { schemas: Json } };
  const paths: Json = {};
  for (const [path, item] of Object.entries(spec.paths)) {
    if (path === '/rest/api/3/search/jql') continue;
    paths[path.replace(/^\/rest\/api\/3\//, '/rest/api/2/')] = item;
  }
  spec.paths = paths;
  const comment = spec.components.schemas.Comment as { properties: Json };
  comment.properties.body = { type: 'string', description: 'The comment text in Jira wiki markup.' };
  return spec as unknown as Document;
}
