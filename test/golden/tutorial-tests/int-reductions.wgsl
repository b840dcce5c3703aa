struct Params {
  n: i32,
}

@group(0) @binding(0) var<storage, read> a: array<i32>;
@group(0) @binding(1) var<storage, read_write> mn: array<i32>;
@group(0) @binding(2) var<storage, read_write> mx: array<i32>;
@group(0) @binding(3) var<storage, read_write> pr: array<i32>;
@group(0) @binding(4) var<uniform> params: Params;

@compute @workgroup_size(1)
fn loopy_kernel() {
  let n = params.n;
  var acc_k: i32;
  var acc_k_0: i32;
  var acc_k_1: i32;
  for (var i: i32 = 0i; i <= -1i + n; i++) {
    acc_k = 1i;
    acc_k_0 = i32(-2147483648);
    acc_k_1 = 2147483647i;
    for (var k: i32 = 0i; k <= 3i; k++) {
      acc_k = acc_k * a[4i * i + k];
      acc_k_0 = max(acc_k_0, a[4i * i + k]);
      acc_k_1 = min(acc_k_1, a[4i * i + k]);
    }
    pr[i] = acc_k;
    mx[i] = acc_k_0;
    mn[i] = acc_k_1;
  }
}
