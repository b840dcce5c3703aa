struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> a_s0: array<f32>;
@group(0) @binding(1) var<storage, read> a_s1: array<f32>;
@group(0) @binding(2) var<storage, read_write> out_s0: array<f32>;
@group(0) @binding(3) var<storage, read_write> out_s1: array<f32>;
@group(0) @binding(4) var<storage, read_write> swapped_s0: array<f32>;
@group(0) @binding(5) var<storage, read_write> swapped_s1: array<f32>;
@group(0) @binding(6) var<uniform> params: Params;

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  for (var i: i32 = 0i; i <= -1i + n; i++) {
    out_s0[i] = a_s0[i] + a_s1[i];
    out_s1[i] = a_s0[i] - a_s1[i];
    for (var j: i32 = 0i; j <= 1i; j++) {
      if (j == 0i) {
        swapped_s0[i] = select(a_s1[i], a_s0[i], 1i - j == 0i);
      }
      if (j == 1i) {
        swapped_s1[i] = select(a_s1[i], a_s0[i], 1i - j == 0i);
      }
    }
  }
}
