/** Assertions that a call is refused with a LoomError, shared by the tests of refusals. */
import * as assert from 'uvu/assert';
import { LoomError } from '@loom/core';

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
