/**
 * Environment variables where there is an environment: Node has `process.env`, a browser
 * has nothing (and Loom's browser bundles must not reach for `process`).
 */

/** An environment variable, where there is an environment (Node; not a browser). */
export function environment(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.[name];
}

/**
 * Debug mode: `LOOM_DEBUG` set to anything but '' or '0'. Bounds checks are on by default,
 * and the kernel is verified between preprocessing passes (preprocess/pipeline.ts).
 *
 * `LOOM_DEBUG` is read once, on first use, and kept: every `run` asks, and reading
 * `process.env` costs more than the rest of a repeated call's binding. A program that
 * changes its mind while running says so with `setDebugMode`.
 */
export function debugMode(): boolean {
  if (debug === undefined) debug = debugFromEnvironment();
  return debug;
}

/** Debug mode as decided so far: undefined until first asked, or after `setDebugMode()`. */
let debug: boolean | undefined;

/**
 * Turns debug mode on or off for the rest of the process, whatever `LOOM_DEBUG` says; with
 * no argument, goes back to `LOOM_DEBUG`, read again now (after changing `process.env`).
 */
export function setDebugMode(on?: boolean): void {
  debug = on ?? debugFromEnvironment();
}

function debugFromEnvironment(): boolean {
  const value = environment('LOOM_DEBUG');
  return value !== undefined && value !== '' && value !== '0';
}
