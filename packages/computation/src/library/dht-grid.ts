/**
 * The host side of the discrete Hermite transform (Reikna's `dht` module): the harmonic
 * oscillator's eigenfunctions, the Gauss-Hermite grid and weights they are sampled on, and
 * the matrices `dht` multiplies by. Everything in float64.
 *
 * Orthonormal Hermite functions are evaluated by their three-term recurrence,
 *   p0 = pi^(-1/4),  p(j+1) = x sqrt(2/(j+1)) p(j) - sqrt(j/(j+1)) p(j-1),
 * which stays finite where H_n(x) and sqrt(2^n n!) separately would not.
 */
import { LoomError } from '@loom/core';

const PI_M4 = Math.PI ** -0.25;

/** The normalized Hermite polynomials of orders `mode` and `mode - 1` at `x`. */
function hermitePair(mode: number, x: number): [number, number] {
  let p = PI_M4;
  let prev = 0;
  for (let j = 0; j < mode; j++) [p, prev] = [x * Math.sqrt(2 / (j + 1)) * p - Math.sqrt(j / (j + 1)) * prev, p];
  return [p, prev];
}

function checkCount(what: string, name: string, n: number, least: number): void {
  if (!Number.isSafeInteger(n) || n < least)
    throw new LoomError(`${what}: ${name} must be an integer >= ${least}, got ${n}`);
}

/**
 * The orthonormal Hermite polynomial of order `mode`: `H_n(x) / (pi^(1/4) sqrt(2^n n!))`, with
 * `H_n` the physicists' polynomial (Reikna's `hermite`).
 *
 *   hermite(2)(1.5)   // (4 * 1.5^2 - 2) / (pi^(1/4) * sqrt(8))
 */
export function hermite(mode: number): (x: number) => number {
  checkCount('hermite', 'mode', mode, 0);
  return (x) => hermitePair(mode, x)[0];
}

/**
 * The eigenfunction of order `mode` of the harmonic oscillator,
 * `phi_n(x) = H_n(x) exp(-x^2/2) / (pi^(1/4) sqrt(2^n n!))`, normalized so that the integral
 * of its square is 1 (Reikna's `harmonic`).
 *
 *   const phi3 = harmonic(3);
 *   phi3(0.5);
 */
export function harmonic(mode: number): (x: number) => number {
  const poly = hermite(mode);
  return (x) => poly(x) * Math.exp(-(x * x) / 2);
}

/**
 * The roots of the Hermite polynomial of degree `order` and the Gauss-Hermite weights, roots
 * ascending (Reikna's `h_roots`): Newton's method from the usual asymptotic guesses, more
 * accurate than eigenvalue methods for large orders.
 *
 *   const [roots, weights] = hRoots(5);   // sum of weights[k] * f(roots[k]) ~ integral of f(x) exp(-x^2)
 */
export function hRoots(order: number): [Float64Array, Float64Array] {
  checkCount('hRoots', 'order', order, 1);
  const roots = new Float64Array(order);
  const weights = new Float64Array(order);
  let z = Math.sqrt(2 * order + 1) - 1.85575 * (2 * order + 1) ** -0.16667;
  for (let i = 0; i < (order + 1) >> 1; i++) {
    // each guess from the roots found before it, largest first (roots[j] holds the j-th negated)
    if (i === 1) z -= (1.14 * order ** 0.426) / z;
    else if (i === 2) z = 1.86 * z + 0.86 * roots[0];
    else if (i === 3) z = 1.91 * z + 0.91 * roots[1];
    else if (i > 3) z = 2 * z + roots[i - 2];
    let derivative = Number.NaN;
    let converged = false;
    for (let iteration = 0; iteration < 20 && !converged; iteration++) {
      const [p, prev] = hermitePair(order, z);
      derivative = Math.sqrt(2 * order) * prev;
      const step = p / derivative;
      z -= step;
      converged = Math.abs(step) <= 1e-14;
    }
    if (!converged) throw new LoomError(`hRoots: Newton's method did not converge for root ${i} of order ${order}`);
    roots[order - 1 - i] = z;
    roots[i] = -z;
    weights[i] = weights[order - 1 - i] = 2 / (derivative * derivative);
  }
  return [roots, weights];
}

/**
 * The number of points of the spatial grid on which the `order`-th power of a function of
 * `modes` modes is transformed exactly, plus `addPoints` (Reikna's `get_spatial_points`).
 *
 *   getSpatialPoints(10, 1)   // 10
 */
export function getSpatialPoints(modes: number, order: number, addPoints = 0): number {
  checkCount('getSpatialPoints', 'modes', modes, 1);
  checkCount('getSpatialPoints', 'order', order, 1);
  checkCount('getSpatialPoints', 'addPoints', addPoints, 0);
  return Math.floor(((modes - 1) * (order + 1)) / 2) + 1 + addPoints;
}

/**
 * The Gauss-Hermite quadrature points and weights for `modes` modes and `order`, scaled so that
 * a sum over the grid integrates the `order`-th power of mode functions (Reikna's
 * `get_spatial_grid_and_weights`).
 *
 *   const [xs, ws] = getSpatialGridAndWeights(8, 2);
 */
export function getSpatialGridAndWeights(modes: number, order: number, addPoints = 0): [Float64Array, Float64Array] {
  const [roots, weights] = hRoots(getSpatialPoints(modes, order, addPoints));
  const scale = Math.sqrt(2 / (order + 1));
  return [roots.map((r) => r * scale), weights.map((w, k) => w * Math.exp(roots[k] ** 2) * scale)];
}

/**
 * The spatial grid on which `dht` samples functions of `modes` modes raised to `order`
 * (Reikna's `get_spatial_grid`).
 *
 *   const xs = getSpatialGrid(10, 1);   // 10 points, symmetric about 0
 */
export function getSpatialGrid(modes: number, order: number, addPoints = 0): Float64Array {
  return getSpatialGridAndWeights(modes, order, addPoints)[0];
}

/**
 * The quadrature weights of `getSpatialGrid`'s points (Reikna's `get_spatial_weights`).
 *
 *   const ws = getSpatialWeights(10, 1);
 */
export function getSpatialWeights(modes: number, order: number, addPoints = 0): Float64Array {
  return getSpatialGridAndWeights(modes, order, addPoints)[1];
}

/**
 * The values of the mode functions `harmonic(0 .. modes-1)` at the spatial grid's points, row
 * major, `modes` rows of `getSpatialPoints(modes, order, addPoints)` (Reikna's
 * `get_transformation_matrix`).
 *
 *   const m = getTransformationMatrix(4, 1, 0);   // 4 x 4
 */
export function getTransformationMatrix(modes: number, order: number, addPoints = 0): Float64Array {
  const xs = getSpatialGrid(modes, order, addPoints);
  const out = new Float64Array(modes * xs.length);
  for (let m = 0; m < modes; m++) {
    const phi = harmonic(m);
    for (let k = 0; k < xs.length; k++) out[m * xs.length + k] = phi(xs[k]);
  }
  return out;
}
