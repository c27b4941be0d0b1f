//! gpuprim-burn against Burn's own results (its sort reads the tensor back and sorts on
//! the CPU with `total_cmp`) and CPU references, on random tensors with ties, NaN, ±inf
//! and -0.0: 1-D, many short rows, few long rows, 3-D, and sizes 0, 1 and not a multiple
//! of 4. Every element is checked.

use std::sync::OnceLock;

use burn::tensor::{Int, Tensor, TensorData};
use gpuprim_burn::BurnGpu;

/// One shared device for the whole binary (a device per test would make several wgpu
/// devices in one process).
fn gpu() -> &'static BurnGpu {
    static GPU: OnceLock<BurnGpu> = OnceLock::new();
    GPU.get_or_init(|| BurnGpu::new().unwrap_or_else(|e| panic!("no device for the tests: {e}")))
}

/// Shapes as [rows..., cols]: 1-D of 0, 1, 7 and 1001 elements, many short rows, few
/// long rows, 3-D, and empty rows.
const SHAPES_2D: &[[usize; 2]] = &[[300, 5], [3, 1001], [1, 1], [64, 1], [2, 0], [0, 3]];
const SHAPES_1D: &[usize] = &[0, 1, 7, 1001, 4096];
const SHAPE_3D: [usize; 3] = [4, 3, 17];

/// A deterministic stream (splitmix64).
struct Rand(u64);

impl Rand {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Floats with many ties (a few dozen distinct values), and NaN, ±inf, ±0.0 when
    /// `special`.
    fn floats(&mut self, n: usize, special: bool) -> Vec<f32> {
        (0..n)
            .map(|_| {
                let r = self.next();
                match (special, r % 23) {
                    (true, 0) => f32::NAN,
                    (true, 1) => f32::INFINITY,
                    (true, 2) => f32::NEG_INFINITY,
                    (true, 3) => -0.0,
                    (true, 4) => 0.0,
                    _ => ((r >> 8) % 40) as f32 * 0.25 - 5.0,
                }
            })
            .collect()
    }

    fn ints(&mut self, n: usize) -> Vec<i32> {
        (0..n)
            .map(|_| ((self.next() >> 16) % 61) as i32 - 30)
            .collect()
    }
}

fn floats_of<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().try_to_vec::<f32>().unwrap()
}

fn ints_of<const D: usize>(t: Tensor<D, Int>) -> Vec<i32> {
    t.into_data().try_to_vec::<i32>().unwrap()
}

/// Bit-for-bit equality of float vectors, naming the first difference.
fn assert_bits_eq(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(
            g.to_bits(),
            w.to_bits(),
            "{what}: element {i}: {g} against {w}"
        );
    }
}

/// Each row's stable sorting permutation by `f32::total_cmp` (reversed for descending,
/// equal elements still in input order).
fn cpu_argsort(values: &[f32], cols: usize, descending: bool) -> Vec<i32> {
    let mut out = Vec::with_capacity(values.len());
    if cols == 0 {
        return out;
    }
    for row in values.chunks(cols) {
        let mut idx: Vec<usize> = (0..row.len()).collect();
        idx.sort_by(|&a, &b| {
            let o = row[a].total_cmp(&row[b]);
            if descending { o.reverse() } else { o }
        });
        out.extend(idx.iter().map(|&i| i as i32));
    }
    out
}

/// Sort, argsort and sort_with_indices of one float tensor, both directions.
fn check_float_sorts<const D: usize>(t: Tensor<D>, cols: usize, what: &str) {
    let g = gpu();
    let host = floats_of(t.clone());
    for descending in [false, true] {
        let what = format!("{what}, descending {descending}");
        let burn = if descending {
            t.clone().sort_descending(D - 1)
        } else {
            t.clone().sort(D - 1)
        };
        let ours = g.sort(t.clone(), D - 1, descending).unwrap();
        assert_eq!(ours.dims(), t.dims(), "{what}: shape");
        assert_bits_eq(
            &floats_of(ours),
            &floats_of(burn.clone()),
            &format!("{what}: sort"),
        );
        let want = cpu_argsort(&host, cols, descending);
        let order = ints_of(g.argsort(t.clone(), D - 1, descending).unwrap());
        assert_eq!(order, want, "{what}: argsort");
        let (values, indices) = g.sort_with_indices(t.clone(), D - 1, descending).unwrap();
        assert_bits_eq(
            &floats_of(values),
            &floats_of(burn),
            &format!("{what}: sort_with_indices"),
        );
        assert_eq!(ints_of(indices), want, "{what}: sort_with_indices' indices");
    }
}

#[test]
fn float_sorts_match_burn_on_every_shape() {
    let g = gpu();
    let mut r = Rand(1);
    for &n in SHAPES_1D {
        let t = Tensor::<1>::from_data(TensorData::new(r.floats(n, true), [n]), g.device());
        check_float_sorts(t, n, &format!("1-D {n}"));
    }
    for &[rows, cols] in SHAPES_2D {
        let data = r.floats(rows * cols, true);
        let t = Tensor::<2>::from_data(TensorData::new(data, [rows, cols]), g.device());
        check_float_sorts(t, cols, &format!("{rows} x {cols}"));
    }
    let [a, b, c] = SHAPE_3D;
    let t = Tensor::<3>::from_data(
        TensorData::new(r.floats(a * b * c, true), SHAPE_3D),
        g.device(),
    );
    check_float_sorts(t, c, "3-D");
}

#[test]
fn a_transposed_tensor_is_sorted_as_burn_sees_it() {
    let g = gpu();
    let mut r = Rand(2);
    let t = Tensor::<2>::from_data(TensorData::new(r.floats(6 * 9, true), [6, 9]), g.device())
        .transpose();
    check_float_sorts(t, 6, "transposed 9 x 6");
}

#[test]
fn int_sorts_match_burn() {
    let g = gpu();
    let mut r = Rand(3);
    for (rows, cols) in [(1usize, 1001usize), (250, 7), (3, 0)] {
        let data = r.ints(rows * cols);
        let t =
            Tensor::<2, Int>::from_data(TensorData::new(data.clone(), [rows, cols]), g.device());
        for descending in [false, true] {
            let what = format!("i32 {rows} x {cols}, descending {descending}");
            let burn = if descending {
                t.clone().sort_descending(1)
            } else {
                t.clone().sort(1)
            };
            assert_eq!(
                ints_of(g.sort(t.clone(), 1, descending).unwrap()),
                ints_of(burn),
                "{what}"
            );
            let floats: Vec<f32> = data.iter().map(|&v| v as f32).collect();
            let want = cpu_argsort(&floats, cols, descending);
            assert_eq!(
                ints_of(g.argsort(t.clone(), 1, descending).unwrap()),
                want,
                "{what}: argsort"
            );
        }
    }
}

/// Each row's inclusive scan on the CPU, in f64 for floats.
fn cpu_scan<T: Copy>(values: &[T], cols: usize, mut f: impl FnMut(T, T) -> T) -> Vec<T> {
    let mut out = Vec::with_capacity(values.len());
    if cols == 0 {
        return out;
    }
    for row in values.chunks(cols) {
        let mut acc = row[0];
        out.push(acc);
        for &v in &row[1..] {
            acc = f(acc, v);
            out.push(acc);
        }
    }
    out
}

#[test]
fn cumulative_scans_match_the_cpu_and_burn() {
    let g = gpu();
    let mut r = Rand(4);
    for (rows, cols) in [
        (1usize, 4099usize),
        (500, 9),
        (3, 1000),
        (1, 1),
        (0, 4),
        (4, 0),
    ] {
        let n = rows * cols;
        let what = format!("{rows} x {cols}");
        // f32: sums within the bound of gpuprim's scan (each value passes through at
        // most a few dozen additions plus log2(n)), checked against f64 sums; min and
        // max exact. No NaN: min and max of NaN are unspecified in WGSL.
        let x = r.floats(n, false);
        let t = Tensor::<2>::from_data(TensorData::new(x.clone(), [rows, cols]), g.device());
        let sums = floats_of(g.cumsum(t.clone(), 1).unwrap());
        let x64: Vec<f64> = x.iter().map(|&v| f64::from(v)).collect();
        let exact = cpu_scan(&x64, cols, |a, b| a + b);
        let abs = cpu_scan(
            &x64.iter().map(|v| v.abs()).collect::<Vec<_>>(),
            cols,
            |a, b| a + b,
        );
        for i in 0..n {
            let tol = 64.0 * f64::from(f32::EPSILON) * abs[i];
            assert!(
                (f64::from(sums[i]) - exact[i]).abs() <= tol,
                "{what}: cumsum element {i}: {} against {}",
                sums[i],
                exact[i]
            );
        }
        let burn = floats_of(t.clone().cumsum(1));
        for i in 0..n {
            let tol = 128.0 * f64::from(f32::EPSILON) * abs[i];
            assert!(
                (f64::from(sums[i]) - f64::from(burn[i])).abs() <= tol,
                "{what}: against Burn's cumsum at {i}"
            );
        }
        assert_bits_eq(
            &floats_of(g.cummin(t.clone(), 1).unwrap()),
            &cpu_scan(&x, cols, f32::min),
            &format!("{what}: cummin"),
        );
        assert_bits_eq(
            &floats_of(g.cummax(t.clone(), 1).unwrap()),
            &cpu_scan(&x, cols, f32::max),
            &format!("{what}: cummax"),
        );
        // i32: exact, wrapping.
        let k = r.ints(n);
        let t = Tensor::<2, Int>::from_data(TensorData::new(k.clone(), [rows, cols]), g.device());
        assert_eq!(
            ints_of(g.cumsum(t.clone(), 1).unwrap()),
            cpu_scan(&k, cols, i32::wrapping_add),
            "{what}: i32 cumsum"
        );
        assert_eq!(
            ints_of(g.cumprod(t.clone(), 1).unwrap()),
            cpu_scan(&k, cols, i32::wrapping_mul),
            "{what}: i32 cumprod"
        );
        assert_eq!(
            ints_of(g.cummin(t.clone(), 1).unwrap()),
            cpu_scan(&k, cols, i32::min),
            "{what}: i32 cummin"
        );
        assert_eq!(
            ints_of(g.cummax(t, 1).unwrap()),
            cpu_scan(&k, cols, i32::max),
            "{what}: i32 cummax"
        );
    }
}

#[test]
fn topk_matches_burn_and_the_cpu() {
    let g = gpu();
    let mut r = Rand(5);
    for (rows, cols, k) in [
        (1usize, 1001usize, 100usize),
        (40, 33, 5),
        (7, 9, 9),
        (3, 4, 0),
        (5, 1, 1),
    ] {
        let what = format!("{rows} x {cols}, k = {k}");
        // No NaN against Burn: its top-k kernel orders NaN its own way.
        let x = r.floats(rows * cols, false);
        let t = Tensor::<2>::from_data(TensorData::new(x.clone(), [rows, cols]), g.device());
        let (values, indices) = g.topk_with_indices(t.clone(), k, 1).unwrap();
        assert_eq!(values.dims(), [rows, k], "{what}: shape");
        let burn = t.clone().topk(k, 1);
        assert_bits_eq(
            &floats_of(values),
            &floats_of(burn),
            &format!("{what}: values"),
        );
        let want: Vec<i32> = cpu_argsort(&x, cols, true)
            .chunks(cols.max(1))
            .flat_map(|row| row[..k].to_vec())
            .collect();
        assert_eq!(
            ints_of(indices),
            want,
            "{what}: indices (ties: lower index first)"
        );
        assert_bits_eq(
            &floats_of(g.topk(t, k, 1).unwrap()),
            &cpu_argsort(&x, cols, true)
                .chunks(cols.max(1))
                .enumerate()
                .flat_map(|(row, order)| {
                    order[..k]
                        .iter()
                        .map(move |&i| (row, i))
                        .collect::<Vec<_>>()
                })
                .map(|(row, i)| x[row * cols + i as usize])
                .collect::<Vec<f32>>(),
            &format!("{what}: topk"),
        );
    }
    // NaN is the largest, as in the sort; k past the row is an error, not a panic.
    let t = Tensor::<1>::from_floats([1.0, f32::NAN, 3.0, f32::INFINITY], g.device());
    let top = floats_of(g.topk(t.clone(), 2, 0).unwrap());
    assert!(top[0].is_nan() && top[1] == f32::INFINITY, "{top:?}");
    let err = g.topk(t, 5, 0).unwrap_err().to_string();
    assert!(err.contains("k = 5") && err.contains("at most 4"), "{err}");
}

#[test]
fn argmax_and_argmin_match_burn() {
    let g = gpu();
    let mut r = Rand(6);
    // Ties everywhere, NaN, ±inf and ±0.0 in the floats; one row takes gpuprim's argmax,
    // several rows the sort.
    for (rows, cols) in [
        (1usize, 5001usize),
        (1, 1),
        (300, 7),
        (4, 1000),
        (9, 1),
        (0, 3),
    ] {
        let what = format!("{rows} x {cols}");
        let t = Tensor::<2>::from_data(
            TensorData::new(r.floats(rows * cols, true), [rows, cols]),
            g.device(),
        );
        let max = g.argmax(t.clone(), 1).unwrap();
        assert_eq!(max.dims(), [rows, 1], "{what}: shape");
        assert_eq!(
            ints_of(max),
            ints_of(t.clone().argmax(1)),
            "{what}: f32 argmax"
        );
        assert_eq!(
            ints_of(g.argmin(t.clone(), 1).unwrap()),
            ints_of(t.argmin(1)),
            "{what}: f32 argmin"
        );
        let ti = Tensor::<2, Int>::from_data(
            TensorData::new(r.ints(rows * cols), [rows, cols]),
            g.device(),
        );
        assert_eq!(
            ints_of(g.argmax(ti.clone(), 1).unwrap()),
            ints_of(ti.clone().argmax(1)),
            "{what}: i32 argmax"
        );
        assert_eq!(
            ints_of(g.argmin(ti.clone(), 1).unwrap()),
            ints_of(ti.argmin(1)),
            "{what}: i32 argmin"
        );
    }
    let t3 = Tensor::<3>::from_data(
        TensorData::new(r.floats(4 * 3 * 17, true), [4, 3, 17]),
        g.device(),
    );
    assert_eq!(
        ints_of(g.argmax(t3.clone(), 2).unwrap()),
        ints_of(t3.argmax(2)),
        "3-D argmax"
    );
    let empty_rows = Tensor::<2>::empty([3, 0], g.device());
    let err = g.argmax(empty_rows, 1).unwrap_err().to_string();
    assert!(err.contains("dimension of 0"), "{err}");
}

#[test]
fn the_results_feed_burn_ops_on_the_same_device() {
    // A result is an ordinary tensor of Burn's device: Burn's own kernels take it.
    let g = gpu();
    let t = Tensor::<1>::from_floats([3.0, 1.0, 2.0], g.device());
    let sorted = g.sort(t, 0, false).unwrap();
    let doubled = (sorted * 2.0 + 1.0)
        .into_data()
        .try_to_vec::<f32>()
        .unwrap();
    assert_eq!(doubled, [3.0, 5.0, 7.0]);
}

#[test]
fn every_call_works_along_every_dimension() {
    // A 3-D tensor (not a power of two anywhere), each call along each dimension, against
    // Burn's own call along it and a CPU reference of the lines along it.
    let g = gpu();
    let mut r = Rand(7);
    let shape = [5usize, 6, 7];
    let n = shape.iter().product();
    let t = Tensor::<3>::from_data(TensorData::new(r.floats(n, true), shape), g.device());
    let ti = Tensor::<3, Int>::from_data(TensorData::new(r.ints(n), shape), g.device());
    for dim in 0..3 {
        let what = format!("along dim {dim}");
        let cols = shape[dim];
        // The lines along `dim` as rows: the tensor with `dim` swapped last (Burn's view).
        let moved = t.clone().swap_dims(dim, 2);
        let host = floats_of(moved.clone());
        // Row-wise results of the moved tensor, shaped `dims`, put back in place.
        let back = |v: Vec<i32>, dims: [usize; 3]| {
            ints_of(
                Tensor::<3, Int>::from_data(TensorData::new(v, dims), g.device()).swap_dims(dim, 2),
            )
        };
        for descending in [false, true] {
            let what = format!("{what}, descending {descending}");
            let burn = if descending {
                t.clone().sort_descending(dim)
            } else {
                t.clone().sort(dim)
            };
            let ours = g.sort(t.clone(), dim, descending).unwrap();
            assert_eq!(ours.dims(), shape, "{what}: sort's shape");
            assert_bits_eq(&floats_of(ours), &floats_of(burn), &format!("{what}: sort"));
            let want = back(cpu_argsort(&host, cols, descending), moved.dims());
            assert_eq!(
                ints_of(g.argsort(t.clone(), dim, descending).unwrap()),
                want,
                "{what}: argsort"
            );
        }
        // top-3: indices against the CPU (ties: lower index first), values the elements
        // they pick.
        let k = 3;
        let (values, indices) = g.topk_with_indices(t.clone(), k, dim).unwrap();
        let mut dims = shape;
        dims[dim] = k;
        assert_eq!(values.dims(), dims, "{what}: topk's shape");
        let mut moved_dims = moved.dims();
        moved_dims[2] = k;
        let want: Vec<i32> = cpu_argsort(&host, cols, true)
            .chunks(cols)
            .flat_map(|row| row[..k].to_vec())
            .collect();
        assert_eq!(
            ints_of(indices.clone()),
            back(want, moved_dims),
            "{what}: topk's indices"
        );
        assert_bits_eq(
            &floats_of(values),
            &floats_of(t.clone().gather(dim, indices)),
            &format!("{what}: topk's values"),
        );
        let max = g.argmax(t.clone(), dim).unwrap();
        let mut one = shape;
        one[dim] = 1;
        assert_eq!(max.dims(), one, "{what}: argmax's shape");
        assert_eq!(
            ints_of(max),
            ints_of(t.clone().argmax(dim)),
            "{what}: argmax"
        );
        assert_eq!(
            ints_of(g.argmin(ti.clone(), dim).unwrap()),
            ints_of(ti.clone().argmin(dim)),
            "{what}: i32 argmin"
        );
        // i32 sums are exact.
        assert_eq!(
            ints_of(g.cumsum(ti.clone(), dim).unwrap()),
            ints_of(ti.clone().cumsum(dim)),
            "{what}: i32 cumsum"
        );
    }
    let err = g.sort(t, 3, false).unwrap_err().to_string();
    assert!(
        err.contains("dimension 3") && err.contains("rank 3"),
        "{err}"
    );
}

#[test]
fn fused_work_before_and_after_a_call_runs_in_order() {
    // Inputs made by chains of element-wise operations (with fusion on, one kernel that
    // has not run when the call starts) and results read by such chains, with the input
    // read again afterwards; several rounds, each with its own constants.
    let g = gpu();
    let mut r = Rand(8);
    let (rows, cols) = (33usize, 129usize);
    let x = r.floats(rows * cols, false);
    let t = Tensor::<2>::from_data(TensorData::new(x.clone(), [rows, cols]), g.device());
    for round in 0..12 {
        let a = 1.0 + round as f32 * 0.5;
        let input = (t.clone() * a - 1.0).abs() + 0.5;
        let host: Vec<f32> = x.iter().map(|&v| (v * a - 1.0).abs() + 0.5).collect();
        let sorted = g.sort(input.clone(), 1, false).unwrap();
        let after = floats_of(sorted * 2.0 + a);
        let mut want = Vec::with_capacity(host.len());
        for row in host.chunks(cols) {
            let mut row = row.to_vec();
            row.sort_by(f32::total_cmp);
            want.extend(row.iter().map(|&v| v * 2.0 + a));
        }
        assert_bits_eq(
            &after,
            &want,
            &format!("round {round}: sort, then a fused chain"),
        );
        let sums = floats_of(g.cumsum(input.clone() * 0.0 + 1.0, 1).unwrap() - 1.0);
        let counts: Vec<f32> = (0..rows * cols).map(|i| (i % cols) as f32).collect();
        assert_bits_eq(&sums, &counts, &format!("round {round}: cumsum of ones"));
        let best = ints_of(g.argmax(input.clone(), 1).unwrap() + 1);
        let want: Vec<i32> = host
            .chunks(cols)
            .map(|row| {
                let mut best = 0;
                for (i, v) in row.iter().enumerate() {
                    if *v > row[best] {
                        best = i;
                    }
                }
                best as i32 + 1
            })
            .collect();
        assert_eq!(best, want, "round {round}: argmax, then a fused add");
        assert_bits_eq(
            &floats_of(input),
            &host,
            &format!("round {round}: the input after"),
        );
    }
}

/// With Burn's fusion on, the calls take and give the fused backend's tensors.
#[cfg(feature = "fusion")]
#[test]
fn with_fusion_on_the_results_are_fused_tensors() {
    use burn_cubecl::fusion::FusionCubeRuntime;
    use burn_fusion::FusionTensor;
    let g = gpu();
    let t = Tensor::<1>::from_floats([3.0, 1.0, 2.0], g.device());
    let sorted = g.sort(t, 0, false).unwrap();
    let primitive: FusionTensor<FusionCubeRuntime> = sorted
        .try_into_primitive::<burn::backend::Wgpu>()
        .expect("a tensor of Burn's wgpu backend");
    assert_eq!(primitive.shape.num_elements(), 3);
}

/// `n` distinct floats in a random order (no ties, so every sort order is the one
/// order, whoever sorts).
fn distinct(r: &mut Rand, n: usize) -> Vec<f32> {
    let mut v: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - n as f32 * 0.25).collect();
    for i in (1..n).rev() {
        v.swap(i, (r.next() % (i as u64 + 1)) as usize);
    }
    v
}

#[test]
fn sort_and_topk_values_carry_gradients_under_autodiff() {
    // loss = sum(w * f(x)): the gradient of x at an element is the weight of the output
    // position the element went to (0 where it went nowhere), the scatter of w by the
    // indices. Checked against the CPU's sort and against Burn's own ops.
    let g = gpu();
    let device = g.device().clone().autodiff();
    let mut r = Rand(9);
    let (rows, cols) = (6usize, 37usize);
    let x_host = distinct(&mut r, rows * cols);
    let w_host: Vec<f32> = (0..rows * cols).map(|i| (i % 7) as f32 - 3.0).collect();
    let x = Tensor::<2>::from_data(TensorData::new(x_host.clone(), [rows, cols]), &device)
        .require_grad();
    for descending in [false, true] {
        let what = format!("sort, descending {descending}");
        let w = Tensor::<2>::from_data(TensorData::new(w_host.clone(), [rows, cols]), &device);
        let (values, indices) = g.sort_with_indices(x.clone(), 1, descending).unwrap();
        assert!(
            values.is_autodiff() && indices.is_autodiff(),
            "{what}: results on the autodiff device"
        );
        let order = cpu_argsort(&x_host, cols, descending);
        assert_eq!(ints_of(indices), order, "{what}: indices");
        let grads = (values * w).sum().backward();
        let got = floats_of(x.grad(&grads).expect("x requires grad"));
        let mut want = vec![0.0f32; rows * cols];
        for row in 0..rows {
            for j in 0..cols {
                want[row * cols + order[row * cols + j] as usize] = w_host[row * cols + j];
            }
        }
        assert_bits_eq(&got, &want, &format!("{what}: gradient"));
        // Burn's own sort, differentiated by Burn.
        let w = Tensor::<2>::from_data(TensorData::new(w_host.clone(), [rows, cols]), &device);
        let burn = if descending {
            x.clone().sort_descending(1)
        } else {
            x.clone().sort(1)
        };
        let grads = (burn * w).sum().backward();
        assert_bits_eq(
            &floats_of(x.grad(&grads).expect("x requires grad")),
            &want,
            &format!("{what}: Burn's gradient"),
        );
    }
    // topk along dim 0 (the columns): elements not picked get 0.
    let k = 2;
    let w = Tensor::<2>::from_data(
        TensorData::new(w_host[..k * cols].to_vec(), [k, cols]),
        &device,
    );
    let (values, indices) = g.topk_with_indices(x.clone(), k, 0).unwrap();
    let picked = ints_of(indices);
    let grads = (values * w).sum().backward();
    let got = floats_of(x.grad(&grads).expect("x requires grad"));
    let mut want = vec![0.0f32; rows * cols];
    for col in 0..cols {
        let mut column: Vec<usize> = (0..rows).collect();
        column.sort_by(|&a, &b| x_host[b * cols + col].total_cmp(&x_host[a * cols + col]));
        for j in 0..k {
            assert_eq!(
                picked[j * cols + col] as usize,
                column[j],
                "topk column {col}"
            );
            want[column[j] * cols + col] = w_host[j * cols + col];
        }
    }
    assert_bits_eq(&got, &want, "topk along dim 0: gradient");
    // Indices of an autodiff tensor, and a cumsum (Burn's op, with its gradient: the
    // reversed running sums of w).
    assert_eq!(
        ints_of(g.argmax(x.clone(), 1).unwrap()),
        ints_of(x.clone().inner().argmax(1)),
        "argmax of an autodiff tensor"
    );
    let w = Tensor::<2>::from_data(TensorData::new(w_host.clone(), [rows, cols]), &device);
    let grads = (g.cumsum(x.clone(), 1).unwrap() * w).sum().backward();
    let got = floats_of(x.grad(&grads).expect("x requires grad"));
    let mut want = vec![0.0f32; rows * cols];
    for row in 0..rows {
        let mut acc = 0.0f32;
        for j in (0..cols).rev() {
            acc += w_host[row * cols + j];
            want[row * cols + j] = acc;
        }
    }
    assert_bits_eq(&got, &want, "cumsum: gradient");
}
