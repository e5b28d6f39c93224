import TurndownService from 'turndown';

export interface RunbookUrlConfig {
  /**
   * Hosts and ports a runbook URL may name: `wiki.example.com` (its scheme's default port: 443 for https, 80
   * for http), `wiki.example.com:8443`, or `*.example.com[:port]` for its subdomains.
   */
  allowedHosts: string[];
  maxBytes: number;
  timeoutMs: number;
  cacheSeconds: number;
}

/** Why a URL was not read: the model gets it as an error result naming the setting. */
export class RunbookUrlRefused extends Error {}

const MAX_REDIRECTS = 3;

/**
 * Reads a runbook URL: http(s) only, from an allowed host (redirects too), at most maxBytes (the rest cut
 * and said), HTML turned into Markdown, remembered for cacheSeconds. The host list is the operators' own:
 * text in an alert cannot add to it.
 */
export class RunbookUrlFetcher {
  private readonly cache = new Map<string, { until: number; text: string }>();
  private readonly turndown = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
  });

  constructor(
    private readonly cfg: RunbookUrlConfig,
    private readonly now: () => number = Date.now,
  ) {
    // Scripts, styles and images carry nothing a reader of a runbook needs (a rule: the built-in image rule wins over remove).
    this.turndown.remove(['script', 'style', 'noscript', 'iframe']);
    this.turndown.addRule('no-images', { filter: 'img', replacement: () => '' });
  }

  async read(url: string, signal: AbortSignal): Promise<string> {
    const hit = this.cache.get(url);
    if (hit && hit.until > this.now()) return hit.text;
    const text = await this.follow(url, signal);
    this.cache.set(url, { until: this.now() + this.cfg.cacheSeconds * 1000, text });
    return text;
  }

  private async follow(start: string, signal: AbortSignal): Promise<string> {
    let url = this.check(start);
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const res = await fetch(url, {
        redirect: 'manual',
        signal: AbortSignal.any([signal, AbortSignal.timeout(this.cfg.timeoutMs)]),
        headers: { accept: 'text/markdown, text/plain, text/html;q=0.9' },
      });
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        await res.body?.cancel();
        url = this.check(new URL(location, url).href);
        continue;
      }
      if (!res.ok) {
        await res.body?.cancel();
        throw new Error(`GET ${url.href} answered ${res.status}`);
      }
      return this.toText(res);
    }
    throw new Error(`GET ${start}: more than ${MAX_REDIRECTS} redirects`);
  }

  private check(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new RunbookUrlRefused(`"${raw}" is not a URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw new RunbookUrlRefused(`${url.protocol} URLs are not read: only http and https`);
    if (url.username || url.password) throw new RunbookUrlRefused('URLs with credentials are not read');
    if (!hostAllowed(url, this.cfg.allowedHosts))
      throw new RunbookUrlRefused(
        `${url.host} is not in runbooks.allowedHosts (LESTRADE_RUNBOOK_HOSTS): ask an operator to add it`,
      );
    return url;
  }

  private async toText(res: Response): Promise<string> {
    const { text, clipped } = await readCapped(res, this.cfg.maxBytes);
    const type = res.headers.get('content-type') ?? '';
    const body = /html/i.test(type) || /^\s*<(!doctype|html)/i.test(text) ? this.turndown.turndown(text) : text;
    return clipped ? `${body}\n\n[runbook cut at ${this.cfg.maxBytes} bytes (runbooks.maxBytes)]` : body;
  }
}

/**
 * Whether the URL's host and port are on the list: exact host names, or `*.example.com` for any subdomain of
 * example.com (not example.com itself), each with `:port`, or without it for the URL's scheme's default port
 * only — allowing `127.0.0.1` allows neither Lestrade's own port nor any other service on that host.
 */
export function hostAllowed(url: URL, allowed: readonly string[]): boolean {
  const h = url.hostname.toLowerCase().replace(/\.$/, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return allowed.some((entry) => {
    const m = /^(.*?)(?::(\d{1,5}))?$/.exec(entry.toLowerCase())!;
    const pattern = m[1]!;
    if ((m[2] ?? (url.protocol === 'https:' ? '443' : '80')) !== port) return false;
    return pattern.startsWith('*.') ? h.endsWith(pattern.slice(1)) && h.length > pattern.length - 1 : h === pattern;
  });
}

async function readCapped(res: Response, maxBytes: number): Promise<{ text: string; clipped: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let clipped = false;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = maxBytes - size;
    chunks.push(value.length > room ? value.subarray(0, room) : value);
    size += Math.min(value.length, room);
    if (value.length >= room) {
      clipped = value.length > room || !(await reader.read()).done;
      await reader.cancel();
      break;
    }
  }
  return { text: new TextDecoder().decode(Buffer.concat(chunks)), clipped };
}
