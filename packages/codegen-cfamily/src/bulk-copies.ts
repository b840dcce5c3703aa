/**
 * Bulk copies (core's `bulkCopies`): the copies of a local tile that a nest of loops and work-items
 * issues element by element become one request a step, which the first work-item of the group makes
 * and the hardware carries out (CUDA's tensor memory accelerator, `cp.async.bulk.tensor`).
 *
 * A request names a box of a "tensor map", a view of a global array as up to five axes, each with
 * a stride in elements (the first contiguous) and an extent, and writes the box to local memory
 * in order, first axis fastest. This module finds, for each nest of copies into one local array,
 * the box its copies fill by enumerating them (every work-item, every loop of the nest): the
 * copies' local indices must be the tile's elements 0..N-1, each once, and their global indices
 * must be the mixed-radix digits of the local index, each digit moving the global index by a
 * constant stride. A tile laid out in core matrices (8 x 8 blocks) is then a box of four axes:
 * the 8 contiguous elements of a line, the 8 lines, the blocks along the row, the blocks down.
 * What does not have that shape is a LoomError that says why, before anything runs.
 *
 * A copy's indices are the step's part (loops around the nest, the work-group: the box's start)
 * plus the tile's part (the nest's loops and the work-items: the offsets within the box); an index
 * that mixes the two is refused. The start's coordinates are proven to keep the box within each
 * axis but the outermost (where the request would read zeros past the row instead of the next
 * row's elements, as the element copies would).
 *
 * Completion: a request signals a barrier object in local memory with its bytes. The copies are
 * grouped as `asyncPlan` groups `cp.async` copies (a pipeline's step, or everything before a
 * barrier), each group on one of `slots` barrier objects in turn; a barrier waits until every
 * group but the latest `inFlight` has landed, each work-item counting the groups committed and
 * waited for (they are the same in every work-item: commits and barriers are reached by all).
 *
 * Release (the kernel option `bulkRelease`: `'arrivals'`, or `'auto'` for a warp-specialised kernel):
 * where the kernel's only local arrays are bulk tiles and nothing but the requests writes them, a
 * barrier orders nothing but the refills: each
 * work-item waits for the tiles it reads itself, and what others must not overtake is the next
 * request into a buffer they read. Such a barrier becomes an arrival ("my reads before here are
 * done"), and the requesting work-item waits for everyone's arrival at the latest one just before
 * its next request or commit: the others go on without waiting for one another. A commit waits
 * too, so that a group's barrier object is reused only once every work-item has waited for its
 * previous group (the same order the block barrier gave).
 */
import {
  constantLocalSize,
  expr as E,
  LoomError,
  statementsOfKind,
  type Expr,
  type KernelFunction,
  type Stmt,
} from '@loom/core';
import type { AsyncPlan } from './async-copies.ts';
import { NestFinder } from './bulk-nests.ts';
import { producerPlan, type ProducerPlan } from './bulk-producer.ts';
import type { CExpressionPrinter } from './expressions.ts';

/** A helper function: its name and definition. */
interface Helper {
  readonly name: string;
  readonly definition: string;
}

/** How a language issues bulk copies and waits for them (`CDialect.bulkCopy`). */
export interface BulkCopySpelling {
  /** The most axes a tensor map has. */
  readonly maxRank: number;
  /** The most elements of a box along one axis. */
  readonly maxBox: number;
  /** The bytes a box's contiguous run must be a multiple of, and its strides. */
  readonly strideBytes: number;
  /** The bytes a box's place in local memory must be a multiple of. */
  readonly localAlignment: number;
  /** What a local array is declared with to start at a multiple of `bytes` (`__align__(1024) `). */
  alignedLocal(bytes: number): string;
  /** The declaration of the tensor map parameter `name`, and the helper defining its type. */
  mapParameter(name: string): { readonly text: string; readonly helper: Helper };
  /**
   * The kernel's first lines: `slots` barrier objects and the counters, set up, then a barrier; and
   * which work-items make the requests and commits (`issuer`, a condition: the first work-item, or
   * the producer's row).
   */
  prologue(slots: number, issuer: string): { readonly lines: readonly string[]; readonly helper: Helper };
  /**
   * The request of a box of `rank` axes of tensor map `map` at `coordinates` (printed, first axis
   * first) into local address `to`, signalling the current group's barrier object with `bytes`;
   * made by the group's first work-item only.
   */
  copy(
    rank: number,
    map: string,
    to: string,
    coordinates: readonly string[],
    bytes: number,
    slots: number,
  ): {
    readonly text: string;
    readonly helper: Helper;
  };
  /** The statement closing the current group (every work-item), and its helper. */
  commit(slots: number): { readonly text: string; readonly helper: Helper };
  /** The statement waiting until at most the latest `groups` groups are in flight, and its helper. */
  waitLeaving(groups: number, slots: number): { readonly text: string; readonly helper: Helper };
  /**
   * The kernel's first lines for releases by arrival (after `prologue`): the barrier objects every
   * one of `workItems` arrives at, and their counters.
   */
  releasePrologue(workItems: number): { readonly lines: readonly string[]; readonly helper: Helper };
  /** A barrier as an arrival (every work-item; `comment` says what it orders), and its helper. */
  release(comment: string | undefined): { readonly text: string; readonly helper: Helper };
  /** The requesting work-item's wait for everyone's arrival at the latest release, before a request or commit. */
  acquire(): { readonly text: string; readonly helper: Helper };
}

/** A view of a global array that bulk copies read (CUDA's `CUtensorMap`), as the device makes it at launch. */
export interface TensorMapSpec {
  /** The kernel parameter holding it (after the kernel's own). */
  readonly name: string;
  /** The position of the global array among the kernel's parameters. */
  readonly param: number;
  /** The bytes of an element. */
  readonly elementBytes: number;
  /** The swizzle the box lands in local memory with (`TemporaryVariable.swizzle`: 32, 64 or 128 bytes), or 0. */
  readonly swizzle: number;
  /**
   * Its axes, first (contiguous) first: the stride in elements, the box's elements along it, and
   * the axis's extent; undefined for the outermost, whose extent is the array's elements over its
   * stride (known at launch).
   */
  readonly axes: readonly { readonly stride: number; readonly box: number; readonly extent: number | undefined }[];
}

/** One nest of copies as one request. */
export interface BulkIssue {
  /** The sibling statements the nest is (one, or a run of a block's). */
  readonly length: number;
  /** The tensor map the request reads through. */
  readonly map: TensorMapSpec;
  /** The local array the box lands in. */
  readonly local: string;
  /** The flat index (unswizzled) in `local` of the box's first element. */
  readonly localOffset: Expr;
  /** The box's coordinates along each axis of the map. */
  readonly coordinates: readonly Expr[];
  /** Conditions of the step (none of the tile's) the copies are under. */
  readonly conditions: readonly Expr[];
  /** The bytes the box holds, which its barrier object expects. */
  readonly bytes: number;
}

/** A kernel's bulk copies: each nest's request, the tensor maps, and the barrier objects. */
export interface BulkPlan {
  /** Each nest's request, by the nest's first statement. */
  readonly issues: ReadonlyMap<Stmt, BulkIssue>;
  /** The local arrays the requests fill (declared aligned for them). */
  readonly tiles: ReadonlySet<string>;
  /** The kernel's tensor maps, one per distinct view, in the order its parameters take them. */
  readonly maps: readonly TensorMapSpec[];
  /** Barrier objects, one per group that may be in flight, and the one waited for. */
  readonly slots: number;
  /** Groups committed after statements (a pipeline's steps); none: every barrier closes one. */
  readonly commitsAtBarriers: boolean;
  /**
   * The work-items arriving at each release, where the kernel's local barriers are releases by
   * arrival (see the file's comment); undefined where they are barriers of the work-group.
   */
  readonly releaseArrivals: number | undefined;
  /** The work-item of its own that makes the requests (bulk-producer.ts); undefined: the first work-item. */
  readonly producer: ProducerPlan | undefined;
}

/** Whether `body` holds bulk copies. */
export function hasBulkCopies(body: Stmt): boolean {
  return statementsOfKind(body, 'assign').some((s) => s.bulk);
}

/** The bulk copies of kernel `k` as requests (see the file's comment); a LoomError where a nest is no box. */
export function bulkPlan(
  k: KernelFunction,
  spelling: BulkCopySpelling | undefined,
  groups: AsyncPlan,
): BulkPlan | undefined {
  // a language without them prints each copy as its asynchronous copies (core lets bulk copies through
  // to such a language only where work-items run one after another, each copy complete at once)
  if (!spelling || !hasBulkCopies(k.body)) return undefined;
  const constants = constantLocalSize(k.localSize);
  if (!constants)
    throw new LoomError(
      `kernel '${k.name}': bulk copies need a work-group size known before launch, to find the tile its work-items copy`,
    );
  const finder = new NestFinder(k, spelling, constants);
  finder.visit(k.body, new Map());
  const tiles = new Set([...finder.issues.values()].map((i) => i.local));
  const problem = releaseProblem(k, tiles);
  const producer = producerPlan(k, constants, problem, {
    issues: finder.issues,
    commitAfter: groups.commitAfter,
  });
  const workItems = constants.reduce((a, b) => a * b, 1);
  return {
    issues: finder.issues,
    tiles,
    maps: finder.maps,
    slots: groups.inFlight + 1,
    commitsAtBarriers: groups.commitAfter.size === 0,
    // the producer arrives at each release too
    releaseArrivals: releasesByArrival(k, problem) ? workItems + (producer ? 1 : 0) : undefined,
    producer,
  };
}

/**
 * Whether kernel `k`'s local barriers become arrivals (`KernelOptions.bulkRelease`): asked for, or
 * (`'auto'`) in a warp-specialised kernel, where they may; a LoomError where they are asked for and may not.
 */
function releasesByArrival(k: KernelFunction, problem: string | undefined): boolean {
  if (k.bulkRelease === 'barriers') return false;
  if (problem && k.bulkRelease === 'arrivals')
    throw new LoomError(
      `kernel '${k.name}' asks for bulkRelease 'arrivals', but ${problem}, which only a barrier of the work-group orders; set bulkRelease to 'barriers' or 'auto'`,
    );
  // 'auto' keeps the work-group's barriers but where a producer needs arrivals: on the H100 arrivals ran no
  // faster than the barriers (BENCHMARKS.md, twenty-sixth session), which have run on every Hopper test
  return problem === undefined && (k.bulkRelease === 'arrivals' || k.warpSpecialized === true);
}

/** What in kernel `k` a barrier must order besides the refills of bulk `tiles`; undefined where nothing. */
function releaseProblem(k: KernelFunction, tiles: ReadonlySet<string>): string | undefined {
  const local = new Set([
    ...statementsOfKind(k.body, 'declare')
      .filter((d) => d.addressSpace === 'local')
      .map((d) => d.name),
    ...(k.localArguments ?? []).map((a) => a.name),
  ]);
  const other = [...local].find((name) => !tiles.has(name));
  if (other !== undefined) return `its local array '${other}' is no bulk tile`;
  const write = statementsOfKind(k.body, 'assign').find(
    (s) => !s.bulk && s.target.kind === 'subscript' && local.has(s.target.array),
  );
  if (write?.target.kind === 'subscript')
    return `instruction '${write.insnId}' writes the local array '${write.target.array}'`;
  const store = statementsOfKind(k.body, 'matrix').find((s) => s.op.kind === 'store' && local.has(s.op.c.array));
  if (store) return `instruction '${store.insnId}' stores a tile into local memory`;
  const opaque = [...statementsOfKind(k.body, 'code'), ...statementsOfKind(k.body, 'call')][0];
  if (opaque) return `instruction '${opaque.insnId}' may write local memory (code Loom does not read)`;
  const call = statementsOfKind(k.body, 'device-call')[0];
  if (call) return `the call of '${call.function}' may write local memory`;
  return undefined;
}

/** The request of nest `issue` (printed where its copies were), under the step's conditions. */
export function printBulkIssue(issue: BulkIssue, printer: CExpressionPrinter): string {
  const spelling = printer.dialect.bulkCopy!;
  const plan = printer.bulkPlan!;
  const to = `${issue.local} + (${printer.print(issue.localOffset, 'int32')})`;
  const coordinates = issue.coordinates.map((c) => printer.print(c, 'int32'));
  const call = spelling.copy(issue.coordinates.length, issue.map.name, to, coordinates, issue.bytes, plan.slots);
  printer.useHelper(call.helper);
  if (issue.conditions.length === 0) return call.text;
  const condition = issue.conditions.reduce((all, c) => E.logical('and', all, c));
  return `if (${printer.print(condition)}) ${call.text}`;
}

/** The statements before a barrier of a kernel with bulk copies: the group closed (where barriers close them), then the wait. */
export function bulkWait(printer: CExpressionPrinter): string[] {
  const plan = printer.bulkPlan;
  if (!plan) return [];
  const spelling = printer.dialect.bulkCopy!;
  const lines: string[] = [];
  if (plan.commitsAtBarriers) lines.push(bulkCommit(printer)!);
  const wait = spelling.waitLeaving(plan.commitsAtBarriers ? 0 : printer.asyncPlan.inFlight, plan.slots);
  printer.useHelper(wait.helper);
  return [...lines, wait.text];
}

/**
 * The statement closing a group of bulk copies; undefined in a kernel without them. Where barriers
 * are releases by arrival, the commit first waits for the latest (its barrier object may be the one
 * a work-item still waits on), but `acquired` right after requests that waited.
 */
export function bulkCommit(printer: CExpressionPrinter, { acquired = false } = {}): string | undefined {
  const plan = printer.bulkPlan;
  if (!plan) return undefined;
  const commit = printer.dialect.bulkCopy!.commit(plan.slots);
  printer.useHelper(commit.helper);
  const acquire = acquired ? undefined : bulkAcquire(printer);
  return acquire ? `${acquire} ${commit.text}` : commit.text;
}

/** The requesting work-item's wait for the latest release, before a request or commit; undefined without releases. */
export function bulkAcquire(printer: CExpressionPrinter): string | undefined {
  // consumers make no request (bulk-producer.ts)
  if (printer.bulkPlan?.releaseArrivals === undefined || printer.bulkRole === 'consumer') return undefined;
  const acquire = printer.dialect.bulkCopy!.acquire();
  printer.useHelper(acquire.helper);
  return acquire.text;
}

/** A local barrier of a kernel whose barriers are releases by arrival, as its arrival; undefined elsewhere. */
export function bulkRelease(printer: CExpressionPrinter, comment: string | undefined): string | undefined {
  if (printer.bulkPlan?.releaseArrivals === undefined) return undefined;
  const release = printer.dialect.bulkCopy!.release(comment);
  printer.useHelper(release.helper);
  return release.text;
}

/** A kernel's first lines (its barrier objects set up) and last (every group waited for), for its bulk copies. */
export function bulkFrame(printer: CExpressionPrinter): { first: readonly string[]; last: readonly string[] } {
  const plan = printer.bulkPlan;
  if (!plan) return { first: [], last: [] };
  const spelling = printer.dialect.bulkCopy!;
  const ids = printer.dialect.hardwareId;
  const issuer = plan.producer
    ? `${ids('lid', plan.producer.axis)} == ${plan.producer.index}`
    : [0, 1, 2].map((axis) => `${ids('lid', axis)} == 0`).join(' && ');
  const prologue = spelling.prologue(plan.slots, issuer);
  printer.useHelper(prologue.helper);
  const releases = plan.releaseArrivals === undefined ? undefined : spelling.releasePrologue(plan.releaseArrivals);
  if (releases) printer.useHelper(releases.helper);
  // a block may not leave while its copies still write its local memory (with a producer, these lines are the
  // consumers': they count the producer's last commit, and acquire nothing)
  const last = plan.commitsAtBarriers ? [bulkCommit(printer, { acquired: plan.producer !== undefined })!] : [];
  const wait = spelling.waitLeaving(0, plan.slots);
  printer.useHelper(wait.helper);
  return { first: [...prologue.lines, ...(releases?.lines ?? [])], last: [...last, wait.text] };
}

/**
 * A barrier as the producer passes it (bulk-producer.ts): the group closed where barriers close
 * them, then its arrival; it waits for no copy and runs no product.
 */
export function producerBarrier(printer: CExpressionPrinter, comment: string | undefined): string[] {
  const plan = printer.bulkPlan!;
  return [...(plan.commitsAtBarriers ? [bulkCommit(printer)!] : []), bulkRelease(printer, comment)!];
}

/** The tensor map parameters a kernel takes after its own, for its bulk copies. */
export function bulkParameters(printer: CExpressionPrinter): string[] {
  const plan = printer.bulkPlan;
  if (!plan) return [];
  return plan.maps.map((m) => {
    const p = printer.dialect.bulkCopy!.mapParameter(m.name);
    printer.useHelper(p.helper);
    return p.text;
  });
}
