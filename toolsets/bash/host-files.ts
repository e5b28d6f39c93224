import { accessSync, constants, lstatSync, readlinkSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first executable of that name on the PATH given, or null. */
export function findOnPath(name: string, path: string): string | null {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder: try the next
    }
  }
  return null;
}

export function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

export function readlinkOrNull(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}
