/** Assertions that a call is refused with a LoomError, shared by the tests of refusals. */
import * as assert from 'uvu/assert';
import { LoomError, run, type Device, type LoopKernel } from '@loom/core';

/** Asserts that `f` (sync or async) throws a LoomError whose message contains `message`. */
export async function refused(f: () => unknown, message: string): Promise<void> {
  try {
    await f();
  } catch (e) {
    assert.instance(e, LoomError);
    assert.match((e as Error).message, message);
    return;
  }
  assert.unreachable(`expected a LoomError: ${message}`);
}

/**
 * Asserts that `f` throws a LoomError matching `pattern` at once, synchronously (a call's metadata
 * errors are thrown by the call, not by the promise it returns: pointwise()'s).
 */
export function refusedNow(f: () => unknown, pattern: RegExp): void {
  let result: unknown;
  try {
    result = f();
  } catch (e) {
    assert.instance(e, LoomError);
    assert.match((e as Error).message, pattern);
    return;
  }
  // a promise rejected later is no synchronous refusal: silence it, and fail
  if (result instanceof Promise) result.catch(() => {});
  assert.unreachable(`expected a LoomError matching ${pattern}`);
}

/** The message of the LoomError `f` throws at once; fails the test where it throws nothing or something else. */
export function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    assert.instance(e, LoomError);
    return (e as Error).message;
  }
  return assert.unreachable('expected a LoomError') as never;
}

/**
 * `run(knl, device, args)`'s outputs, or undefined where the device refused the kernel by name with
 * a LoomError containing `reason` before running it (CUDA on a GPU without Hopper's instructions:
 * 'compute capability 9.0'); any other failure fails the test.
 */
export async function runUnlessRefused(
  knl: LoopKernel,
  device: Device,
  args: Record<string, unknown>,
  reason: string,
): Promise<Record<string, unknown> | undefined> {
  const outcome = await run(knl, device, args as Parameters<typeof run>[2]).then(
    (r) => r as Record<string, unknown>,
    (e: Error) => e,
  );
  if (!(outcome instanceof Error)) return outcome;
  assert.ok(outcome instanceof LoomError, String(outcome));
  assert.match(outcome.message, reason);
  return undefined;
}
