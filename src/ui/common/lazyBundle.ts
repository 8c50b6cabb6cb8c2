// Code the activation does not need lives in bundles of its own beside dist/extension.js (see
// esbuild.mjs), read on first use: VS Code loads extension.js before anything shows, so every
// kilobyte left out of it is start-up time saved.
import { join } from 'node:path';

/** A bundle of dist/, `require`d once, on the first call. */
export interface LazyBundle<T> {
  (): T;
  /** The bundle's exports when it was loaded already, else undefined (nothing of it can be in use then). */
  readonly loaded: T | undefined;
}

/**
 * `file` is a sibling of this bundle in dist/, built as CommonJS by esbuild.mjs. The path is
 * made at run time so that esbuild leaves the `require` alone instead of bundling the file in.
 */
export function lazyBundle<T>(file: string): LazyBundle<T> {
  let exports: T | undefined;
  const load = (() => (exports ??= require(join(__dirname, file)) as T)) as LazyBundle<T>;
  Object.defineProperty(load, 'loaded', { get: () => exports });
  return load;
}
