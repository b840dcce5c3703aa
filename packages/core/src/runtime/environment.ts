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
 */
export function debugMode(): boolean {
  const debug = environment('LOOM_DEBUG');
  return debug !== undefined && debug !== '' && debug !== '0';
}
