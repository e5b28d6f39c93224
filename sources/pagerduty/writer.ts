import { z } from 'zod';
import { PermanentError } from '../../src/errors.js';
import type { IssueLocator } from '../../src/issue.js';
import type { RcaWriter, WrittenComment } from '../../src/registration/rca-writer.js';
import { once } from '../common/once.js';
import type { PagerDutyApi } from './api.js';
import { markedDigest, rcaDigest } from './marker.js';
import { renderNote } from './render-note.js';
import type { PdNote } from './schema.js';

const RefSchema = z.object({ incidentId: z.string().regex(/^[A-Za-z0-9]+$/), url: z.string().optional() });

function refOf(locator: IssueLocator): z.infer<typeof RefSchema> {
  const parsed = RefSchema.safeParse(locator.ref);
  if (!parsed.success) throw new PermanentError(`pagerduty: locator ${locator.key} has no incident id`);
  return parsed.data;
}

/** Our note as the engine knows it, with the digest of the RCA it carries. */
interface WrittenNote extends WrittenComment {
  sha: string;
}

/**
 * The RCA as a note on the incident, written as the configured user (From). Notes cannot be
 * edited, so "update" adds a note only when the RCA changed: each note's marker line carries a
 * digest of its RCA. Ours = written by the From user (notes name their author by user id, looked
 * up once by e-mail) AND carrying our marker: anyone can paste the marker line.
 */
export function pagerdutyWriter(api: PagerDutyApi, fromEmail: string, noteLimit: number): RcaWriter {
  const written = (locator: IssueLocator, note: PdNote, sha: string): WrittenNote => ({
    id: note.id,
    url: refOf(locator).url ?? null,
    sha,
  });
  const ourUserId = once(async () => {
    const id = await api.userIdByEmail(fromEmail);
    if (!id)
      throw new PermanentError(
        `pagerduty: PAGERDUTY_FROM_EMAIL ${fromEmail} is not a user of the account; set it to a user's e-mail`,
      );
    return id;
  });

  /** Our newest note on the incident (the known id first, if it is still there and ours). */
  const newest = async (locator: IssueLocator, knownId: string | null): Promise<WrittenNote | null> => {
    const me = await ourUserId();
    const ours = (await api.listNotes(refOf(locator).incidentId))
      .filter((note) => note.user?.id === me)
      .map((note) => ({ note, sha: markedDigest(note.content, locator) }))
      .filter((n): n is { note: PdNote; sha: string } => n.sha !== null);
    const known = ours.find((n) => n.note.id === knownId);
    const at = (n: PdNote) => Date.parse(n.created_at ?? '') || 0;
    // PagerDuty lists notes oldest first; on equal times the later one in the list wins.
    const pick =
      known ??
      ours.reduce<(typeof ours)[number] | undefined>((a, b) => (!a || at(b.note) >= at(a.note) ? b : a), undefined);
    return pick ? written(locator, pick.note, pick.sha) : null;
  };

  const add: RcaWriter['create'] = async (locator, doc) => {
    const { content, digest } = renderNote(locator, doc, noteLimit);
    return written(locator, await api.createNote(refOf(locator).incidentId, content, fromEmail), digest);
  };

  return {
    find: newest,
    create: add,
    async update(locator, existing, doc) {
      // writeRca hands back what find returned; anything else is looked up again.
      const sha =
        typeof (existing as Partial<WrittenNote>).sha === 'string'
          ? (existing as WrittenNote).sha
          : (await newest(locator, existing.id))?.sha;
      return sha === rcaDigest(doc) ? existing : add(locator, doc);
    },
  };
}
