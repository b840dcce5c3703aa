/**
 * Which execution backends must be present. On a developer's machine a missing backend (no OpenCL
 * driver, no WebGPU adapter) only skips its tests, with one line saying so; in CI, or wherever
 * `LOOM_REQUIRE` names the backend, it is an error, so that a broken driver install cannot pass
 * as a green run that silently tested nothing.
 *
 *   CI=true                        every backend is required (CI services set this variable)
 *   LOOM_REQUIRE=opencl,webgpu     these are required (`all` names every backend)
 *
 * Browsers have no `process`; there nothing is required and skips are reported through the console.
 */
import { LoomError } from '../errors.ts';

export type BackendName = 'opencl' | 'webgpu' | 'cpu';

const DISPLAY_NAMES: Record<BackendName, string> = { opencl: 'OpenCL', webgpu: 'WebGPU', cpu: 'CPU' };

/** An environment variable, where there is an environment (Node; not a browser). */
export function environment(name: string): string | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env;
  return env?.[name];
}

/** The backends `LOOM_REQUIRE` names (lower-cased, trimmed). */
function requiredByName(): string[] {
  return (environment('LOOM_REQUIRE') ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
}

/** Why `name` is required, for the error message; undefined when it is not. */
function requirement(name: BackendName): string | undefined {
  if (environment('CI') === 'true') return 'CI=true';
  const named = requiredByName();
  if (named.includes(name) || named.includes('all')) return `LOOM_REQUIRE=${environment('LOOM_REQUIRE')}`;
  return undefined;
}

/** Whether a missing `name` backend must fail the run rather than skip its tests. */
export function backendRequired(name: BackendName): boolean {
  return requirement(name) !== undefined;
}

const reported = new Set<BackendName>();

/**
 * Reports that backend `name` cannot be used, `reason` saying why in one line: throws a LoomError
 * when the backend is required, otherwise prints `loom: skipping <name> tests: <reason>` (once per
 * backend per process, however many test files notice it).
 */
export function noteBackendMissing(name: BackendName, reason: string): void {
  const why = requirement(name);
  if (why !== undefined) {
    throw new LoomError(`${DISPLAY_NAMES[name]} backend required (${why}) but unavailable: ${reason}`);
  }
  if (reported.has(name)) return;
  reported.add(name);
  console.warn(`loom: skipping ${name} tests: ${reason}`);
}
