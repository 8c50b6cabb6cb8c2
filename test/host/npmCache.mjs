// `npm ci` of a pinned package.json and lockfile into a folder of the cache, once: what the test
// host (Node 24, code-server) and the interop agents are installed with. No import.meta: this file
// is also bundled into CommonJS tests for the extension host (through test/interop/agents.mjs).
import { spawnSync } from 'node:child_process';
import {
  copyFileSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

const MARKER = '.acp-sessions-installed';

/** Whether `target` holds a finished install whose marker records `fingerprint`. */
export function isInstalled(target, fingerprint) {
  try { return readFileSync(join(target, MARKER), 'utf8').trim() === fingerprint; } catch { return false; }
}

function pidAlive(pid) {
  try { process.kill(pid, 0); return true; } catch (e) { return e.code === 'EPERM'; }
}

/**
 * The environment for a nested `npm ci`: inside an npm script (`npm test`, `npm run demo`) the
 * outer npm exports its own state as `npm_*` variables, and a nested npm reads every
 * `npm_config_*` of them as its configuration. The one that broke installs is
 * `npm_config_user_agent` ("npm/… node/v20…"): code-server's postinstall reads the Node version
 * from it and refused Node 24 as "node v20". A nested install must describe itself, so none of
 * the outer npm's variables reach it (npm reads the user's .npmrc again on its own).
 * @param {NodeJS.ProcessEnv} env
 * @returns {NodeJS.ProcessEnv}
 */
export function withoutOuterNpm(env) {
  const clean = {};
  for (const [key, value] of Object.entries(env)) {
    if (!/^npm_/i.test(key) && key !== 'INIT_CWD' && key !== 'NODE') clean[key] = value;
  }
  return clean;
}

function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Runs `fn` holding a lock directory (mkdir is atomic); waits while another live process holds
 * it and takes over a lock whose owner died, so concurrent and interrupted installs are safe.
 */
function withLock(lockDir, label, say, fn) {
  let waited = false;
  for (;;) {
    try {
      mkdirSync(lockDir);
      writeFileSync(join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let owner = NaN;
      try { owner = Number(readFileSync(join(lockDir, 'pid'), 'utf8')); } catch { /* being written */ }
      if (Number.isInteger(owner) && owner > 0 && !pidAlive(owner)) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (!waited) say(`waiting for another process (pid ${owner}) to finish installing ${label}…`);
      waited = true;
      sleepSync(1000);
    }
  }
  try { return fn(); } finally { rmSync(lockDir, { recursive: true, force: true }); }
}

/**
 * `npm ci` of `from`/package.json and package-lock.json into `target`, unless a finished install
 * with the same `fingerprint` is there. Installs into a private folder beside it and renames that
 * into place, so a half-finished install is never mistaken for a good one.
 * @param {{
 *   from: string, target: string, fingerprint: string,
 *   label: string, note?: string, say: (message: string) => void,
 *   env?: NodeJS.ProcessEnv, npmConfig?: Record<string, string>, check?: (dir: string) => void,
 * }} options `label` names what is installed in messages; `env` is cleaned of an outer npm's
 *   variables (see withoutOuterNpm), then `npmConfig` (`npm_config_*` settings of this install)
 *   is added; `check` throws when the install in `dir` is incomplete (before it is marked finished).
 * @returns {string} target
 */
export function npmCiOnce({ from, target, fingerprint, label, note = 'first run only', say, env = process.env, npmConfig = {}, check }) {
  if (isInstalled(target, fingerprint)) return target;
  const cache = dirname(target);
  mkdirSync(cache, { recursive: true });
  return withLock(`${target}.lock`, label, say, () => {
    if (isInstalled(target, fingerprint)) return target;
    const partialPrefix = `${basename(target)}.partial-`;
    for (const entry of readdirSync(cache)) {
      if (entry.startsWith(partialPrefix)) rmSync(join(cache, entry), { recursive: true, force: true });
    }
    const partial = join(cache, `${partialPrefix}${process.pid}`);
    mkdirSync(partial, { recursive: true });
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(from, file), join(partial, file));
    say(`installing ${label} into ${target} (${note})…`);
    const started = Date.now();
    const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: partial, env: { ...withoutOuterNpm(env), ...npmConfig }, stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (result.error || result.status !== 0) {
      throw new Error(`npm ci of ${label} failed (${result.error?.message ?? `exit ${result.status}`}) in ${partial}; see the npm output above.`);
    }
    check?.(partial);
    writeFileSync(join(partial, MARKER), `${fingerprint}\n`);
    rmSync(target, { recursive: true, force: true });
    renameSync(partial, target);
    say(`installed ${label} in ${Math.round((Date.now() - started) / 1000)} s`);
    return target;
  });
}
