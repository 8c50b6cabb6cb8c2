// How an agent's command is found and started, without a shell: on PATH (with PATHEXT on
// Windows), and on Windows through cmd.exe when it is a batch file, which is how npm installs
// command-line tools there (`claude-agent-acp.cmd`, `gemini.cmd`, ...) and which Node will not
// start directly. Plain Node only.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

type Env = Record<string, string | undefined>;

/**
 * Where `command` would be found when started as the agent is started (no shell): an
 * absolute or relative path as given, otherwise the first executable match on PATH (with
 * PATHEXT on Windows). Undefined when it is not there.
 */
export function findExecutable(
  command: string,
  env: Env = process.env,
  cwd: string = process.cwd(),
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  if (!command) return undefined;
  const extensions = platform === 'win32'
    ? ['', ...(env.PATHEXT ?? env.Pathext ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean)]
    : [''];
  const candidates = (base: string) => extensions.map((ext) => base + ext);
  if (isAbsolute(command) || /[\\/]/.test(command)) {
    return candidates(isAbsolute(command) ? command : join(cwd, command)).find((c) => isExecutableFile(c, platform));
  }
  const path = env.PATH ?? env.Path ?? '';
  for (const dir of path.split(platform === 'win32' ? ';' : delimiter)) {
    if (!dir) continue;
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
 * The command as given everywhere but on Windows, where it is looked up on PATH with PATHEXT (as
 * cmd.exe would), and a `.cmd` or `.bat` runs as `cmd.exe /d /s /c "<line>"`: each argument quoted by the
 * rules programs' argument parsers follow, then cmd.exe's special characters escaped with `^`,
 * twice for the arguments, which cmd.exe reads again when the batch file passes them on.
 */
export function spawnCommand(
  command: string,
  args: readonly string[],
  env: Env = process.env,
  cwd: string = process.cwd(),
  platform: NodeJS.Platform = process.platform,
): SpawnCommand {
  if (platform !== 'win32') return { file: command, args: [...args] };
  const found = findExecutable(command, env, cwd, platform);
  if (!found) return { file: command, args: [...args] };
  if (!/\.(cmd|bat)$/i.test(found)) return { file: found, args: [...args] };
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
