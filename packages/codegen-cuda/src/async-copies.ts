/**
 * Asynchronous copies into shared memory as CUDA issues them: `cp.async` (sm_80 and later), 4 or
 * 8 bytes through L1 (`.ca`), 16 bytes past it (`.cg`), waited for with `cp.async.wait_all`
 * before each barrier, or, in a pipeline of several steps ahead, committed a step a group and
 * waited for with `cp.async.wait_group` leaving the later steps in flight. On an older GPU the
 * same helpers copy at once, which is one of the meanings an asynchronous copy may have (it is
 * complete by the barrier either way).
 */
import type { AsyncCopySpelling } from '@loom/codegen-cfamily';

/** The type one copy of `bytes` moves at once where `cp.async` is missing. */
const WORD: Record<number, string> = { 4: 'unsigned int', 8: 'uint2', 16: 'uint4' };

function copyHelper(bytes: number) {
  const name = `loom_copy_async_${bytes}`;
  const cache = bytes === 16 ? 'cg' : 'ca';
  const word = WORD[bytes];
  const definition = [
    `inline __device__ void ${name}(void *to, void const *from)`,
    '{',
    '#if __CUDA_ARCH__ >= 800',
    `  asm volatile("cp.async.${cache}.shared.global [%0], [%1], ${bytes};\\n" :: "r"((unsigned int) __cvta_generic_to_shared(to)), "l"(from));`,
    '#else',
    `  *(${word} *) to = *(${word} const *) from;`,
    '#endif',
    '}',
  ].join('\n');
  return { name, definition };
}

/** A helper of one PTX statement about the copies, which an older GPU (copying at once) skips. */
function ptxHelper(name: string, ptx: string) {
  const definition = [
    `inline __device__ void ${name}()`,
    '{',
    '#if __CUDA_ARCH__ >= 800',
    `  asm volatile("${ptx}\\n" ::: "memory");`,
    '#endif',
    '}',
  ].join('\n');
  return { name, definition };
}

const WAIT = ptxHelper('loom_copy_async_wait', 'cp.async.wait_all;');
const COMMIT = ptxHelper('loom_copy_async_commit', 'cp.async.commit_group;');

/** `cp.async` copies and their wait, for the C printer (`CDialect.asyncCopy`). */
export const cudaAsyncCopy: AsyncCopySpelling = {
  sizes: [4, 8, 16],
  copy: (bytes, to, from) => ({ text: `loom_copy_async_${bytes}(${to}, ${from});`, helper: copyHelper(bytes) }),
  wait: { text: 'loom_copy_async_wait();', helper: WAIT },
  // a pipeline's steps in groups: a barrier waits for all but the latest few (doubleBuffer's `ahead`)
  groups: {
    commit: { text: 'loom_copy_async_commit();', helper: COMMIT },
    waitLeaving: (groups) => {
      const name = `loom_copy_async_wait_leaving_${groups}`;
      return { text: `${name}();`, helper: ptxHelper(name, `cp.async.wait_group ${groups};`) };
    },
  },
  // a 16-byte copy needs a 16-byte aligned place in shared memory
  alignedLocal: '__align__(16) ',
};
