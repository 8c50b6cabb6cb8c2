// What the log takes from an agent is bounded: a message is cut at a length (saying how much
// was left out), so one huge line (a traced 5 MiB message) cannot flood the Output view.
import type { Logger } from './types';

/** Longest message the log takes; the rest is replaced by "… (N more characters)". */
export const MAX_LOGGED_CHARS = 20_000;

export function truncateForLog(message: string, max = MAX_LOGGED_CHARS): string {
  if (message.length <= max) return message;
  return `${message.slice(0, max)}… (${message.length - max} more characters)`;
}

/** A logger that cuts every message it passes on to `max` characters. */
export function boundedLogger(log: Logger, max = MAX_LOGGED_CHARS): Logger {
  const cut = (message: string) => truncateForLog(String(message), max);
  return {
    trace: (m, ...args) => log.trace(cut(m), ...args),
    debug: (m, ...args) => log.debug(cut(m), ...args),
    info: (m, ...args) => log.info(cut(m), ...args),
    warn: (m, ...args) => log.warn(cut(m), ...args),
    error: (m, ...args) => log.error(cut(m), ...args),
  };
}
