/**
 * Struct arrays in the front end. An argument of a struct dtype is, to every pass, the bytes
 * of its elements: a uint8 array with one more axis, the struct's size in bytes (its C
 * layout, which is also WGSL's wherever WGSL can hold the fields: structs/layout.ts), so that
 * shapes, bounds, buffers and host data all count what is really stored. The argument keeps
 * its `struct`, and each access names a real field inside an element: `a[i].f.g` becomes
 * `a[i, 0]` with the field resolved (its dtype and byte offset), which is all type inference
 * and the targets need. A whole element read or written (`a[i]`) is refused: fields are
 * assigned one by one.
 */
import { int, subscript, type Expr, type FieldRef } from '../expr/nodes.ts';
import { mapExpr } from '../expr/visit.ts';
import { printField } from '../expr/print.ts';
import { LoomError } from '../errors.ts';
import type { LoopKernel } from '../kernel/model.ts';
import { mapKernelExpressions } from '../kernel/rewrite-expressions.ts';
import { structLayout, type FieldLayout, type LaidOutType, type StructLayout } from '../structs/layout.ts';
import { isStructDType } from '../structs/struct-dtype.ts';
import type { DeclaredArg } from './arg-spellings.ts';

/** A declared struct argument as the bytes of its elements: uint8, the struct's size as a last axis. */
export function structArgument(a: DeclaredArg): DeclaredArg {
  if (!isStructDType(a.dtype)) return a;
  if (a.kind === 'value' || a.kind === 'image')
    throw new LoomError(`argument '${a.name}' has the struct dtype '${a.dtype.name}': only an array can hold structs`);
  if (!Array.isArray(a.shape))
    throw new LoomError(
      `argument '${a.name}' has the struct dtype '${a.dtype.name}': give its shape (the number of structs along each axis)`,
    );
  if (a.forAtomic)
    throw new LoomError(`argument '${a.name}' has a struct dtype: its fields cannot be updated atomically`);
  if (a.order === 'F' || a.order === 'auto' || a.offset !== undefined)
    throw new LoomError(
      `argument '${a.name}' has a struct dtype: it is stored row-major from its start (no order, no offset)`,
    );
  const size = structLayout(a.dtype).size;
  return { ...a, dtype: 'uint8', shape: [...a.shape, size], struct: a.dtype };
}

/** The names of the struct arguments in a declared argument list (before `structArgument`). */
export function structNames(args: readonly DeclaredArg[]): ReadonlySet<string> {
  return new Set(args.filter((a) => isStructDType(a.dtype)).map((a) => a.name));
}

/** Every field access of a struct argument resolved, and its element's byte axis indexed (see above). */
export function resolveStructFields(knl: LoopKernel): LoopKernel {
  const layouts = new Map(knl.args.flatMap((a) => (a.struct ? [[a.name, structLayout(a.struct)] as const] : [])));
  if (layouts.size === 0) {
    refuseStrayFields(knl);
    return knl;
  }
  const resolve = (e: Expr): Expr =>
    mapExpr(e, (x) => {
      if (x.kind === 'var' && layouts.has(x.name))
        throw new LoomError(
          `'${x.name}' is an array of structs: read or write one field of an element, as ${x.name}[i].f`,
        );
      if (x.kind !== 'subscript') return x;
      const layout = layouts.get(x.array);
      if (!layout) {
        if (x.field) throw new LoomError(`'${x.array}${printField(x.field)}': '${x.array}' is not an array of structs`);
        return x;
      }
      if (!x.field)
        throw new LoomError(
          `'${x.array}' is an array of '${layout.dtype.name}' structs: read or write one field of an element (${x.array}[...].${layout.fields[0].name}), not a whole element`,
        );
      if (x.field.dtype !== undefined) return x;
      if (x.linear) throw new LoomError(`'${x.array}': a struct array is not indexed linearly ([[k]])`);
      return subscript(x.array, [...x.indices, int(0)], false, x.tag, resolvePath(x.array, layout, x.field));
    });
  return mapKernelExpressions(knl, resolve, { what: 'struct fields', assignee: 'whole' });
}

function refuseStrayFields(knl: LoopKernel): void {
  mapKernelExpressions(
    knl,
    (e) =>
      mapExpr(e, (x) => {
        if (x.kind === 'subscript' && x.field)
          throw new LoomError(`'${x.array}${printField(x.field)}': '${x.array}' is not an array of structs`);
        return x;
      }),
    { what: 'struct fields', assignee: 'whole' },
  );
}

/** The real value a path reaches in a struct, with its byte offset; a path that stops at a struct or an array is refused. */
function resolvePath(array: string, layout: StructLayout, field: FieldRef): FieldRef {
  let type: LaidOutType = { kind: 'struct', layout };
  let offset = 0;
  const where = () => `'${array}[...]${printField(field)}'`;
  for (const step of field.path) {
    if (typeof step === 'string') {
      if (type.kind !== 'struct') throw new LoomError(`${where()}: '.${step}' follows a value that is not a struct`);
      const f: FieldLayout | undefined = type.layout.fields.find((x) => x.name === step);
      if (!f)
        throw new LoomError(
          `${where()}: struct '${type.layout.dtype.name}' has no field '${step}' (it has ${type.layout.fields.map((x) => x.name).join(', ')})`,
        );
      offset += f.offset;
      type = f.type;
    } else {
      if (type.kind !== 'array') throw new LoomError(`${where()}: '[${step}]' follows a field that is not an array`);
      if (step >= type.length)
        throw new LoomError(`${where()}: index ${step} is past the array field's ${type.length} elements`);
      offset += step * type.stride;
      type = type.element;
    }
  }
  if (type.kind !== 'scalar')
    throw new LoomError(
      `${where()} is ${type.kind === 'struct' ? `a whole '${type.layout.dtype.name}' struct` : 'a whole array field'}: read or write its fields one by one`,
    );
  return Object.freeze({ path: field.path, dtype: type.dtype, offset });
}
