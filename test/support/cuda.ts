/**
 * The CUDA device for the tests that need one: backends.ts's, under the name these tests knew.
 * CUDA is not among the backends CI=true requires (CI has no NVIDIA GPU): a missing CUDA is an
 * error only where `LOOM_REQUIRE` names it (`LOOM_REQUIRE=cuda` on the GPU machine).
 */
import { noteBackendMissing } from './backends.ts';

export { cudaDeviceOrSkip } from './backends.ts';

/** Reports CUDA missing: a LoomError where it is required, else one line on stderr (once per process). */
export function noteCudaMissing(reason: string): void {
  noteBackendMissing('cuda', reason);
}
