import { z } from 'zod';
import { PermanentError } from '../../src/errors.js';
import type { IssueLocator } from '../../src/issue.js';
import type { CommentDoc } from '../../src/render/compose-comment.js';
import type { RcaWriter, WrittenComment } from '../../src/registration/rca-writer.js';
import type { GitHubApi } from './api.js';
import type { GitHubConfig } from './config.js';
import type { GhComment } from './map.js';
import { markerComment } from './marker.js';
import { renderComment } from './render-comment.js';
import { publicRepoAllowed, publicRepoRefusal } from './repo-policy.js';

const RefSchema = z.object({
  owner: z.string().min(1),
  repo: z.string().min(1),
  number: z.coerce.number().int().positive(),
});
type Ref = z.infer<typeof RefSchema>;

function refOf(locator: IssueLocator): Ref {
  const parsed = RefSchema.safeParse(locator.ref);
  if (!parsed.success) throw new PermanentError(`github: locator ${locator.key} has no owner/repo/number`);
  return parsed.data;
}

const written = (c: Pick<GhComment, 'id' | 'html_url'>): WrittenComment => ({ id: String(c.id), url: c.html_url });

/**
 * Our one comment per issue. "Ours" means written by our own login AND carrying this issue's
 * marker: a marker copied into someone else's comment matches nothing, so we never edit (or
 * trust) a comment we did not write.
 */
export function githubWriter(api: GitHubApi, config: GitHubConfig): RcaWriter {
  return {
    async find(locator, knownId) {
      const { owner, repo, number } = refOf(locator);
      // First, so an identity we cannot establish fails before anything is written.
      const me = await api.botLogin();
      const isOurs = (c: GhComment) => c.user?.login === me && Boolean(c.body?.includes(markerComment(locator)));
      const known = knownId && /^\d+$/.test(knownId) ? await api.comment(owner, repo, Number(knownId)) : null;
      if (known && known.issue_url.endsWith(`/issues/${number}`) && isOurs(known)) return written(known);
      const hit = (await api.comments(owner, repo, number)).find(isOurs);
      return hit ? written(hit) : null;
    },

    async create(locator, doc: CommentDoc) {
      const { owner, repo, number } = refOf(locator);
      return written(await api.createComment(owner, repo, number, renderComment(locator, doc)));
    },

    async update(locator, existing, doc: CommentDoc) {
      const { owner, repo } = refOf(locator);
      return written(await api.updateComment(owner, repo, Number(existing.id), renderComment(locator, doc)));
    },

    async refusal(locator) {
      const { owner, repo } = refOf(locator);
      const r = await api.repository(owner, repo);
      return !r.private && !publicRepoAllowed(config, r.full_name) ? publicRepoRefusal(r.full_name) : null;
    },
  };
}
