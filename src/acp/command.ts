// How an agent's command is found and started, without a shell: on PATH (with PATHEXT on
// Windows), and on Windows through cmd.exe when it is a batch file, which is how npm installs
// command-line tools there (`claude-agent-acp.cmd`, `gemini.cmd`, ...) and which Node will not
// start directly. Plain Node only.
import { accessSync, constants, statSync } from 'node:fs';
import { join, posix, win32 } from 'node:path';

type Env = Record<string, string | undefined>;

/**
 * Where `command` would be found when started as the agent is started (no shell): a path
 * (with a slash) as given, relative to `cwd`; otherwise the first executable match in PATH's
 * absolute directories. On Windows the PATHEXT extensions are tried before the name as given
 * (npm puts an extensionless shell script next to its `.cmd`, which Windows cannot run), unless
 * the name already ends with one of them. Never the working directory for a bare name: that is
 * the workspace, where anyone could plant a program. Undefined when it is not there.
 */
export function findExecutable(
  command: string,
  env: Env = process.env,
  cwd: string = process.cwd(),
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (!command) return undefined;
  const windows = platform === 'win32';
  const pathExt = (env.PATHEXT ?? env.Pathext ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean);
  const hasPathExt = pathExt.some((ext) => command.toLowerCase().endsWith(ext.toLowerCase()));
  const extensions = !windows ? [''] : hasPathExt ? ['', ...pathExt] : [...pathExt, ''];
  const candidates = (base: string) => extensions.map((ext) => base + ext);
  const absolute = windows ? win32.isAbsolute : posix.isAbsolute;
  if (absolute(command) || (windows ? /[\\/]/ : /\//).test(command)) {
    return candidates(absolute(command) ? command : join(cwd, command)).find((c) => isExecutableFile(c, platform));
  }
  const path = env.PATH ?? env.Path ?? '';
  for (const dir of path.split(windows ? ';' : ':')) {
    // An empty or relative entry would be looked up from the agent's cwd: the workspace.
    if (!dir || !absolute(dir)) continue;
    const found = candidates(join(dir, command)).find((c) => isExecutableFile(c, platform));
    if (found) return found;
  }
  return undefined;
}

function isExecutableFile(path: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    if (platform !== 'win32') accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** What to pass to `child_process.spawn` to start `command` with `args`. */
export interface SpawnCommand {
  file: string;
  args: string[];
  /** Set when `args` is one command line already quoted for cmd.exe. */
  windowsVerbatimArguments?: boolean;
}

/**
 * The command found by {@link findExecutable}, by its full path, or undefined when it is not
 * found: a bare name is never left to the operating system, whose own search (on Windows)
 * starts in the child's working directory. On Windows a `.cmd` or `.bat` runs as
 * `cmd.exe /d /s /c "<line>"`: each argument quoted by the rules programs' argument parsers
 * follow, then cmd.exe's special characters escaped with `^`, twice for the arguments, which
 * cmd.exe reads again when the batch file passes them on.
 */
export function spawnCommand(
  command: string,
  args: readonly string[],
  env: Env = process.env,
  cwd: string = process.cwd(),
  platform: NodeJS.Platform = process.platform,
): SpawnCommand | undefined {
  const found = findExecutable(command, env, cwd, platform);
  if (!found) return undefined;
  if (platform !== 'win32' || !/\.(cmd|bat)$/i.test(found)) return { file: found, args: [...args] };
  const line = [escapeForCmd(quoteArgument(found)), ...args.map((a) => escapeForCmd(escapeForCmd(quoteArgument(a))))].join(' ');
  return { file: env.ComSpec ?? env.COMSPEC ?? 'cmd.exe', args: ['/d', '/s', '/c', `"${line}"`], windowsVerbatimArguments: true };
}

/** One argument in double quotes: a quote becomes `\"`, and backslashes before a quote or the end are doubled. */
export function quoteArgument(arg: string): string {
  return `"${arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, '$1$1')}"`;
}

/** cmd.exe's special characters, escaped with `^`. */
function escapeForCmd(text: string): string {
  return text.replace(/[()%!^"<>&|]/g, '^$&');
}
