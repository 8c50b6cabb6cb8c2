// One way to say "the same folder" wherever a session's `cwd` meets a folder VS Code names: an
// agent may spell a folder differently from VS Code (`C:\proj` for `c:\proj`, a trailing
// separator, a symbolic link), and a row must not vanish or double because of the spelling.
import { realpathSync } from 'node:fs';

/**
 * The folder spelled one way: a Windows drive letter in lower case, separators of a Windows path
 * as `\`, no trailing separator (a root keeps its own). Purely textual; `sameFolder` also
 * compares real paths.
 */
export function normalizeFolder(folder: string): string {
  let path = folder;
  const windows = /^[a-zA-Z]:[\\/]/.test(path) || /^[a-zA-Z]:$/.test(path) || path.startsWith('\\\\');
  if (windows) {
    path = path.replace(/\//g, '\\');
    path = path.replace(/^([a-zA-Z]):/, (_, drive: string) => `${drive.toLowerCase()}:`);
    // `c:\` is a root; `c:` alone means the same here.
    if (/^[a-z]:$/.test(path)) return `${path}\\`;
    while (path.length > 3 && path.endsWith('\\')) path = path.slice(0, -1);
    return path;
  }
  while (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path;
}

/** Real paths already looked up (a session's folder is compared many times; a stat each run is enough). */
const realPaths = new Map<string, string | null>();
const MAX_REAL_PATHS = 5000;

/** The folder's real path (links resolved), or undefined when it cannot be resolved (gone, not allowed). */
function realPath(folder: string): string | undefined {
  const key = normalizeFolder(folder);
  let known = realPaths.get(key);
  if (known === undefined) {
    try {
      known = normalizeFolder(realpathSync.native(folder));
    } catch {
      known = null;
    }
    if (realPaths.size >= MAX_REAL_PATHS) realPaths.delete(realPaths.keys().next().value!);
    realPaths.set(key, known);
  }
  return known ?? undefined;
}

/** Forgets the real paths looked up (a Refresh looks again: a link may point elsewhere now). */
export function forgetRealPaths(): void {
  realPaths.clear();
}

/** Whether two spellings name the same folder: textually, or through their real paths. */
export function sameFolder(a: string, b: string): boolean {
  if (a === b) return true;
  const na = normalizeFolder(a);
  const nb = normalizeFolder(b);
  if (na === nb) return true;
  const ra = realPath(a);
  return ra !== undefined && ra === realPath(b);
}
