import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { ToolsetStatus } from '../tools/types.js';

/** A folder YAML toolsets are read from, and what pages call it instead of its path on the host. */
export interface ToolsetFolder {
  dir: string;
  label: string;
}

/** The shipped folder, then `toolsets.dirs` by its configuration key (indexed when there are several). */
export function toolsetFolders(shippedDir: string, configured: readonly string[]): ToolsetFolder[] {
  const label = (i: number) => (configured.length === 1 ? 'toolsets.dirs' : `toolsets.dirs[${i}]`);
  return [{ dir: shippedDir, label: 'shipped' }, ...configured.map((dir, i) => ({ dir, label: label(i) }))];
}

/** The spellings of a folder a path or a message may use: as configured (normalised) and absolute; longest first. */
function spellings(folders: readonly ToolsetFolder[]): Array<{ dir: string; label: string }> {
  const all = folders.flatMap((f) => {
    const trimmed = (d: string) => (d.length > 1 && d.endsWith(sep) ? d.slice(0, -1) : d);
    return [...new Set([trimmed(join(f.dir)), trimmed(resolve(f.dir))])].map((dir) => ({ dir, label: f.label }));
  });
  return all.filter((s) => s.dir !== '.' && s.dir !== sep).sort((a, b) => b.dir.length - a.dir.length);
}

/** "/opt/lestrade/toolsets/kubernetes.yaml" → "kubernetes.yaml (shipped)"; a folder → its label; else unchanged. */
function originOf(origin: string, folders: ReturnType<typeof spellings>): string {
  for (const f of folders) {
    if (origin === f.dir) return f.label;
    const rel = relative(f.dir, origin);
    if (origin.startsWith(f.dir + sep) && !rel.startsWith('..') && !isAbsolute(rel)) return `${rel} (${f.label})`;
  }
  return origin;
}

/** Every mention of a folder in a message: files by their name in it, the folder itself by its label. */
function textWithout(text: string, folders: ReturnType<typeof spellings>): string {
  let out = text;
  for (const f of folders)
    out = out
      .split(f.dir + sep)
      .join('')
      .split(f.dir)
      .join(f.label);
  return out;
}

/**
 * A toolset's status as a page or /readyz shows it: no path of the host Lestrade runs on. YAML files
 * are named relative to their configured folder, a folder by its configuration key, in the name, the
 * origin and the reason alike.
 */
export function withoutServerPaths(status: ToolsetStatus, folders: readonly ToolsetFolder[]): ToolsetStatus {
  const known = spellings(folders);
  return {
    ...status,
    name: textWithout(status.name, known),
    origin: originOf(status.origin, known),
    ...(status.reason === undefined ? {} : { reason: textWithout(status.reason, known) }),
  };
}
