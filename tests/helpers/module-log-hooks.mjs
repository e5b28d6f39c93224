// The load hook of module-log.mjs: appends each ES module's URL to LESTRADE_MODULE_LOG as it loads.
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  appendFileSync(process.env.LESTRADE_MODULE_LOG, `${url}\n`);
  return nextLoad(url, context);
}
