/**
 * What the printer and the launcher must agree on about a kernel function: its
 * JavaScript name, the order of its parameters, which temporaries live outside a
 * single work-item (and so are allocated by the launcher and passed in), and
 * whether it synchronizes at barriers (and so is a generator).
 *
 * A generated kernel function is
 *
 *   function[*] name(gid0, gid1, gid2, lid0, lid1, lid2, ...kernel params, ...shared temporaries)
 *
 * Both sides compute this from the same `KernelFunction`, never from each other.
 */
import { LoomError, walkStmts, type DType, type Expr, type KernelFunction, type Stmt } from '@loom/core';
import { jsName } from './names.ts';

/** A temporary shared by several work-items: one array per work-group (`local`) or per launch (`global`). */
export interface SharedTemporary {
  readonly name: string;
  readonly dtype: DType;
  /**
   * Elements; a shared scalar is an array of one, read and written as `name[0]`. An expression
   * in the kernel's value parameters where the size is known only at launch (evaluated there).
   */
  readonly length: number | Expr;
  readonly scalar: boolean;
  readonly scope: 'local' | 'global';
}

export interface KernelLayout {
  readonly name: string;
  readonly jsName: string;
  readonly shared: readonly SharedTemporary[];
  /** Barrier statements in order of appearance; each yields its index. */
  readonly barriers: number;
}

export function kernelLayout(kernel: KernelFunction): KernelLayout {
  const shared: SharedTemporary[] = [];
  let barriers = 0;
  walkStmts(kernel.body, {
    stmt: (s) => {
      if (s.kind === 'barrier') barriers++;
      else if (s.kind === 'declare' && s.addressSpace !== 'private') {
        shared.push({
          name: s.name,
          dtype: s.dtype,
          length: declaredLength(s),
          scalar: s.length === undefined,
          scope: s.addressSpace,
        });
      }
    },
  });
  return { name: kernel.name, jsName: jsName(kernel.name), shared, barriers };
}

/** Elements of a declared temporary (1 for a scalar); an expression where known only at launch. */
export function declaredLength(s: Extract<Stmt, { kind: 'declare' }>): number | Expr {
  if (s.length === undefined) return 1;
  if (typeof s.length !== 'number') return s.length;
  if (!Number.isInteger(s.length) || s.length < 0) {
    throw new LoomError(`temporary '${s.name}' needs a constant size to be allocated, got ${s.length}`);
  }
  return s.length;
}
