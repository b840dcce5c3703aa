/**
 * `@loom/dsl/profiles` (Node only: it reads files): the device profiles that Loom comes with
 * and the ones written down, for `estimateTime`:
 *
 *   import { estimateTime } from '@loom/core';
 *   import { deviceProfile } from '@loom/dsl/profiles';
 *   estimateTime(knl, deviceProfile('OpenCL: NVIDIA H100'), { n: 4096 });
 *
 * The committed profiles are measured by `bench/roofline.ts --full` on the GPU machine
 * (`bench/gpu-run.sh` runs it; `bench/report.ts` writes them to packages/dsl/profiles/).
 *
 * @module @loom/dsl/profiles
 */
export {
  committedProfiles,
  deviceProfile,
  profileFileName,
  profilesDir,
  readProfile,
  writeProfile,
} from './stats/profiles.ts';
