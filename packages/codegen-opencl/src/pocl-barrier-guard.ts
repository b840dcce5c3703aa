/**
 * Kernels PoCL's optimiser must not see.
 *
 * PoCL 3.1 (LLVM 15, loopvec and cbs alike) miscompiles a sequential loop whose body holds
 * work-group barriers and code under conditions: in a race-free kernel with every barrier in
 * uniform control flow, work-item 0 skips a store guarded by `lid(0) == 0 && i >= 2` (a
 * reduction tree's last stage, in one branch of an if/else whose other branch holds a second
 * tree). The differential generator found it (seed 4041205870); reduced by hand it needs the
 * loop, a loop-variant condition and a second local array updated after the store, and small
 * edits (one more barrier, one term less) hide it, so no rewrite of Loom's code is known to
 * avoid it in general. With `-cl-opt-disable` the same source runs right, so such kernels are
 * built unoptimised on PoCL. bench/repro-4041205870.ts runs the case on every device present;
 * test/regressions-differential.test.ts keeps it.
 */
import { someStmt, subStatements, type ProgramAst, type Stmt } from '@loom/core';

/** Whether an OpenCL device's platform is PoCL (its CL_DEVICE_VERSION or platform name says so). */
export function isPocl(info: { readonly platformName: string; readonly version: string }): boolean {
  return /pocl|portable computing language/i.test(`${info.platformName} ${info.version}`);
}

/** Whether `s` is, or holds, a loop whose body has both a barrier and an `if`. */
function loopWithBarrierAndCondition(s: Stmt): boolean {
  if (s.kind === 'for' && someStmt(s.body, (x) => x.kind === 'barrier') && someStmt(s.body, (x) => x.kind === 'if'))
    return true;
  return subStatements(s).some(loopWithBarrierAndCondition);
}

/** Whether PoCL must build `program` with `-cl-opt-disable` (see the file's comment). */
export function needsUnoptimisedPoclBuild(program: ProgramAst): boolean {
  return program.kernels.some((k) => loopWithBarrierAndCondition(k.body));
}
