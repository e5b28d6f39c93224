// RSS added by one 40 MB MCP result, read whole (maxResultBytes 256 MiB) and capped (the default 4 MiB):
// `node --import tsx bench/mcp-result-rss.ts`. The server runs in a child process so only the client's memory counts.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { McpServerSchema } from '../toolsets/mcp/config.js';
import { createLogger } from '../src/log.js';
import { createMcpToolsets } from '../toolsets/mcp/index.js';
import { startHostileMcp } from '../tests/helpers/hostile-mcp-server.js';

const SIZE = 40 * 1024 * 1024;

if (process.argv[2] === 'server') {
  const big = 'x'.repeat(SIZE);
  const mcp = await startHostileMcp([{ name: 'dump', inputSchema: { type: 'object' } }], () => ({
    content: [{ type: 'text', text: big }],
  }));
  process.send!(mcp.url);
} else if (process.argv[2] === 'client') {
  const [url, maxResultBytes] = [process.argv[3]!, Number(process.argv[4])];
  const cfg = McpServerSchema.parse({ name: 'big', url, readOnly: ['*'], maxResultBytes, timeoutSeconds: 120 });
  const [toolset] = createMcpToolsets([cfg], { log: createLogger('silent') });
  // The toolset's one prerequisite is the first connection (it lists the tools).
  await (toolset!.prerequisites[0] as { run: () => Promise<string | null> }).run();
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const out = await toolset!.tools[0]!.run({}, { signal: new AbortController().signal, approved: true });
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  const kept =
    out.status === 'success'
      ? `${String(out.data).length} characters`
      : `error: ${out.status === 'error' ? out.error.slice(0, 80) : ''}`;
  console.log(`maxResultBytes ${maxResultBytes}: RSS +${((peak - before) / 1048576).toFixed(0)} MB at peak; ${kept}`);
  await toolset!.close!();
} else {
  const server = fork(fileURLToPath(import.meta.url), ['server'], { execArgv: ['--import', 'tsx'] });
  const url = await new Promise<string>((resolve) => server.once('message', (m) => resolve(m as string)));
  for (const max of [256 * 1024 * 1024, 4 * 1024 * 1024]) {
    const client = fork(fileURLToPath(import.meta.url), ['client', url, String(max)], {
      execArgv: ['--import', 'tsx', '--expose-gc'],
    });
    await new Promise((resolve) => client.once('exit', resolve));
  }
  server.kill();
}
