/** One page of an alert search: OpsGenie's and JSM Operations' list endpoints answer alike. */
export interface AlertPage<T> {
  alerts: T[];
  /** The answer's paging says a next page exists. */
  more: boolean;
}

/**
 * The alerts a search finds, every page followed in order, up to `want` and never past `maxOffset`
 * (both services refuse offset + size beyond about 20,000).
 */
export async function listAllPages<T>(
  fetchPage: (offset: number, size: number) => Promise<AlertPage<T>>,
  want: number,
  pageSize: number,
  maxOffset: number,
): Promise<T[]> {
  const listed: T[] = [];
  for (let offset = 0; listed.length < want && offset < maxOffset;) {
    const size = Math.min(pageSize, want - listed.length, maxOffset - offset);
    const page = await fetchPage(offset, size);
    listed.push(...page.alerts);
    offset += page.alerts.length;
    if (!page.more) break;
  }
  return listed.slice(0, want);
}
