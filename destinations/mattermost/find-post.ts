import type { MattermostClient, MmPost, MmPostList } from './mattermost-client.js';

/** Pages of the channel's newest posts looked through for a parent: a thread's parent is recent. */
const MAX_PAGES = 5;
const PAGE = 200;

/** Ours (posted by our account) and carrying exactly this key in its props. */
function isOurs(p: MmPost, me: string, key: string): boolean {
  return p.user_id === me && p.props?.lestrade_key === key;
}

function firstOf(list: MmPostList, wanted: (p: MmPost) => boolean): string | null {
  for (const id of list.order) {
    const p = list.posts[id];
    if (p && wanted(p)) return p.id;
  }
  return null;
}

/**
 * Our earlier top-level post with this key in the channel, or null: how a post whose answer was lost (the
 * connection dropped after Mattermost stored it) is found before posting again.
 */
export async function findInChannel(
  client: MattermostClient,
  channel: string,
  me: string,
  key: string,
): Promise<string | null> {
  for (let page = 0; page < MAX_PAGES; page++) {
    const list = await client.channelPosts(channel, page, PAGE);
    const found = firstOf(list, (p) => !p.root_id && isOurs(p, me, key));
    if (found) return found;
    if (list.order.length < PAGE) return null;
  }
  return null;
}

/** Our earlier reply with this key in the thread of rootId, or null. */
export async function findInThread(
  client: MattermostClient,
  rootId: string,
  me: string,
  key: string,
): Promise<string | null> {
  const list = await client.thread(rootId);
  return firstOf(list, (p) => p.id !== rootId && isOurs(p, me, key));
}
