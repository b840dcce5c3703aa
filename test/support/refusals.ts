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
